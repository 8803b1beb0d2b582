import { describe, expect, it } from 'vitest';
import { interruptBudget, ThreadPool } from '../../../src/commands/sweep-pool.js';

describe('ThreadPool and V8 tiering', () => {
  it('compiles later while a pool of several threads is open, and gives V8 its default back when the last one closes', async () => {
    expect(interruptBudget()).toBe(67_584);
    const one = new ThreadPool(1);
    expect(interruptBudget()).toBe(67_584);
    const two = new ThreadPool(2);
    const four = new ThreadPool(4);
    expect(interruptBudget()).toBe(400_000);
    await two.close();
    await two.close(); // closing twice counts once
    expect(interruptBudget()).toBe(400_000);
    await four.close();
    expect(interruptBudget()).toBe(67_584);
    await one.close();
    expect(interruptBudget()).toBe(67_584);
  });
});
