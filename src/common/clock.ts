import { Injectable } from '@nestjs/common';

/** The time, injectable so that tests can stand on a date boundary. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
