import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { GoogleService } from './google.service.js';

@Module({ imports: [AuthModule], providers: [GoogleService], exports: [GoogleService] })
export class GoogleModule {}
