import { agentCliSuite } from './suite.js';

agentCliSuite('gemini');
