import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(AppModule);
// Every route, the Search Console ones included, lives under /api: /api/hello, /api/mcp, …
app.setGlobalPrefix('api');
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
console.log(`company-backend listening on ${await app.getUrl()}`);
