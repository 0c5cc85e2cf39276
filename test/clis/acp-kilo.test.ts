import { acpCliSuite } from './acp-suite.js';

acpCliSuite('kilo');
