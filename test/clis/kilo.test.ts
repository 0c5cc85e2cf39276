import { moreCliSuite } from './more-suite.js';

// Its engine is opencode's: the live stop is shown on opencode (opencode.test.ts), which runs in a third of the time.
moreCliSuite('kilo', []);
