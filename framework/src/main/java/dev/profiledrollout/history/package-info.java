/**
 * Performance history: every profiled run recorded in a {@link dev.profiledrollout.history.HistoryStore} (a SQLite
 * file by default, any JDBC database for teams) under its test id and configuration fingerprint, so later runs can
 * be checked for regressions against earlier runs of the same configuration with the threshold models of
 * {@link dev.profiledrollout.history.stats}.
 */
package dev.profiledrollout.history;
