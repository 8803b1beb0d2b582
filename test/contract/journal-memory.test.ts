import { MemoryJournal } from '../../src/store/memory.js';
import { journalContract } from './journal.contract.js';

journalContract('MemoryJournal', () => ({ journal: new MemoryJournal(), cleanup: () => undefined }));
// A paper daemon's journal (it forgets orders final for keep.ms; none in these tests).
journalContract('MemoryJournal that forgets', () => ({ journal: new MemoryJournal({ keep: { ms: 24 * 3_600_000, now: () => Date.now() } }), cleanup: () => undefined }));
