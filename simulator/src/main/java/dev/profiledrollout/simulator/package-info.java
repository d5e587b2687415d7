/**
 * The embedded engine twin: an SGLang-compatible HTTP server with a batching scheduler, a roofline cost model
 * and a profiler that writes Kineto-format traces, so that profiled tests run without a GPU.
 */
package dev.profiledrollout.simulator;
