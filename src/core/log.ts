// The logging the parts outside the composition root use. pino's Logger satisfies it, and a
// test can pass a plain object that collects lines.
export interface Log {
  debug(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}
