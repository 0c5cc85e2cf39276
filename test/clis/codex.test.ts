import { agentCliSuite } from './suite.js';

agentCliSuite('codex');
