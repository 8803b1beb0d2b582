#!/usr/bin/env node
// Runs the TypeScript sources directly (no build step), the same way plugins are loaded.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
