import { agentCliSuite } from './suite.js';

agentCliSuite('claude');
