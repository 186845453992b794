#!/usr/bin/env node
// Runs one TypeScript entry file (e.g. `bench/run.ts`) with tsx's loader, forwarding argv.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const [entry, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], entry, ...rest];
await import(pathToFileURL(resolve(entry)).href);
