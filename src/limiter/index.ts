export { BottleneckPacer, VirtualPacer, PacerStoppedError, type PacerOptions } from './pacers.js';
export { RollingWindow } from './window.js';
