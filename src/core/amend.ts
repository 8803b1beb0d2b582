// `base` with members set or added, as a new object. Not `{ ...base, member }`: when the member
// is one `base` may lack, Node 20 (V8 11.3) gives every such object a hidden class of its own,
// so the code that reads them keeps deoptimizing and being compiled again on V8's helper
// threads. Object.assign into a fresh object builds them along one shared chain of classes.
// A leading spread followed only by members its type always has is fine;
// test/unit/architecture/spreads.test.ts finds the other kind.

/** `T` with `U`'s members, for each member of a union `T`. */
export type Amended<T, U> = T extends unknown ? Omit<T, keyof U> & U : never;

export function amend<T extends object, U extends object>(base: T, changes: U): Amended<T, U> {
  return Object.assign({}, base, changes) as unknown as Amended<T, U>;
}
