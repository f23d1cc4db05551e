import { Injectable } from '@nestjs/common';

@Injectable()
export class HelloStats {
  greeted = 0;
}
