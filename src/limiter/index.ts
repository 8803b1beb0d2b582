export {
  BottleneckPacer,
  VirtualPacer,
  PacerStoppedError,
  DEFAULT_WINDOW_MS,
  DEFAULT_SAFETY_MARGIN_MS,
  type PacerOptions,
  type BottleneckPacerOptions,
  type VirtualPacerOptions,
} from './pacers.js';
export { RollingWindow } from './window.js';
