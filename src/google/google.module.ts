import { Module } from '@nestjs/common';
import { GoogleAuthModule } from './google-auth.module.js';
import { GoogleService } from './google.service.js';

@Module({ imports: [GoogleAuthModule], providers: [GoogleService], exports: [GoogleService] })
export class GoogleModule {}
