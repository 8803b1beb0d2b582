import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.js';
import { parseQueueUrl } from '../../../src/queue/index.js';
import { runIndexOfKey } from '../../../src/queue/worker.js';

describe('parseQueueUrl', () => {
  it.each([
    ['redis://127.0.0.1:6390', { host: '127.0.0.1', port: 6390 }, 'redis://127.0.0.1:6390'],
    ['redis://queue.lan', { host: 'queue.lan', port: 6379 }, 'redis://queue.lan'],
    ['redis://:s3cret@10.0.0.5:7000/2', { host: '10.0.0.5', port: 7000, password: 's3cret', db: 2 }, 'redis://:***@10.0.0.5:7000/2'],
    ['redis://sweeper:p%40ss@h:1', { host: 'h', port: 1, username: 'sweeper', password: 'p@ss' }, 'redis://sweeper:***@h:1'],
    ['rediss://h:6380', { host: 'h', port: 6380, tls: {} }, 'rediss://h:6380'],
    ['redis://[::1]:6379', { host: '::1', port: 6379 }, 'redis://[::1]:6379'],
  ])('%s', (url, options, display) => {
    const a = parseQueueUrl(url);
    expect(a.options).toMatchObject(options);
    expect(a.display).toBe(display);
    // Commands wait for a lost connection instead of failing: BullMQ workers need it.
    expect(a.options.maxRetriesPerRequest).toBeNull();
  });

  it.each([
    ['127.0.0.1:6379', /--queue: needs the scheme: write redis:\/\/127\.0\.0\.1:6379/],
    ['localhost', /--queue: must be a Redis URL like redis:\/\/HOST:PORT/],
    ['http://h:6379', /--queue: must start with redis:\/\/ \(or rediss:\/\/ for TLS\), not http:\/\//],
    ['redis://h:6379/queue', /--queue: the path must be a database number \(redis:\/\/HOST:PORT\/0\), not \/queue/],
  ])('refuses %s naming the field and the fix', (url, message) => {
    expect(() => parseQueueUrl(url)).toThrow(ConfigError);
    expect(() => parseQueueUrl(url)).toThrow(message);
  });

  it('never says the password when it refuses a URL', () => {
    let text = '';
    try {
      parseQueueUrl('redis://:hunter2@h:6379/x');
    } catch (err) {
      text = (err as Error).message;
    }
    expect(text).toMatch(/database number/);
    expect(text).not.toContain('hunter2');
  });
});

describe('runIndexOfKey', () => {
  it('reads the index at the end of a child key', () => {
    expect(runIndexOfKey('sluice:runs:ab12cd-0')).toBe(0);
    expect(runIndexOfKey('sluice:runs:ab-12-cd-17')).toBe(17);
    expect(() => runIndexOfKey('sluice:runs:ab12cd')).toThrow(/not a run's key/);
  });
});
