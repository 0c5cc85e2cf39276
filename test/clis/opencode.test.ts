import { moreCliSuite } from './more-suite.js';

moreCliSuite('opencode', [
  ['limit', 'usage_limit', 'limit_wait'],
  ['overloaded', 'transient', 'backoff'],
]);
