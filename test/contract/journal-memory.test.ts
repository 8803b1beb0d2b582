import { MemoryJournal } from '../../src/store/memory.js';
import { journalContract } from './journal.contract.js';

journalContract('MemoryJournal', () => ({ journal: new MemoryJournal(), cleanup: () => undefined }));
