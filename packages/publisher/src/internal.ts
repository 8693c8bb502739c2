/**
 * The publisher's parts its unit tests drive without a process or QUIC (the package's `./internal`
 * export): nothing but tests imports this; the publisher itself is the `.` and `./bundle` entries.
 */
export { Authority } from './authority.js';
export { Ledger } from './ledger.js';
export { createKeyChooser } from './key-chooser.js';
export { pace } from './pacer.js';
export { BrokerLink } from './broker-link.js';
