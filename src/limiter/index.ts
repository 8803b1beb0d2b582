export { PacerStoppedError, DEFAULT_WINDOW_MS, DEFAULT_SAFETY_MARGIN_MS, type PacerOptions, type BottleneckPacerOptions, type VirtualPacerOptions } from './pacer-base.js';
export { BottleneckPacer } from './bottleneck-pacer.js';
export { VirtualPacer } from './virtual-pacer.js';
export { RollingWindow, busiestWindow } from './window.js';
