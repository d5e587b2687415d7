/**
 * Capacity: the highest load at which every latency SLO holds, found by a bounded search over stages of a staged
 * load ({@link dev.profiledrollout.load.StageRunner}). {@link dev.profiledrollout.capacity.SloTarget} parses and judges
 * one percentile SLO against a stage's confidence interval; {@link dev.profiledrollout.capacity.CapacitySearch} runs the
 * bracketing and bisection; {@link dev.profiledrollout.capacity.Capacity} is the figure with its interval, stages and
 * knee.
 */
@API(status = EXPERIMENTAL, since = "0.2")
package dev.profiledrollout.capacity;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import org.apiguardian.api.API;
