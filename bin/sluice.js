#!/usr/bin/env node
// Runs the CLI from its JavaScript build (bin/build.js), so the process carries no TypeScript
// loader: in Node 20 tsx's loader hooks run on a thread of their own, a second V8 isolate that
// cost a daemon about 29 MB for its whole life. Strategy plugins are compiled as they load
// (src/strategy/plugin-import.ts) with inline source maps, so their stack traces name their own
// files; the build has none (parsing the maps of every module of sluice cost a daemon about
// 10 MB), so sluice's own traces name the built JavaScript, laid out as the sources are.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { built } from './build.js';

process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(await built({ hold: true }), 'cli.js')).href);
