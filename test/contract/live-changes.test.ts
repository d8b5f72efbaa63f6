import { sseLiveDriver, wsLiveDriver } from './drivers/live-changes.js';
import { defineContractSuite } from './harness.js';
import { liveChangesScenarios } from './live-changes.js';

defineContractSuite('live changes', { 'graphql-ws': wsLiveDriver, 'graphql-sse': sseLiveDriver }, liveChangesScenarios);
