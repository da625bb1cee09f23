// Every migration, oldest first. Landed migrations are never edited: add a new one.
import { Initial1763780000000 } from './1763780000000-initial.js';

export const migrations = [Initial1763780000000];
