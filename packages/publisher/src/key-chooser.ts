/** The weights and the chooser are the protocol package's (shared with the orchestrator and its systems' writer). */
export { createKeyChooser, keyProbabilities, keyWeight } from '@state-divergence/protocol';
