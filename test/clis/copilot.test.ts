import { moreCliSuite } from './more-suite.js';

moreCliSuite('copilot', []);
