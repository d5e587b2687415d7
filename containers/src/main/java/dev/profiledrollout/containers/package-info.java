/**
 * Testcontainers engines for GPU runners: {@link dev.profiledrollout.containers.SglangContainer} and
 * {@link dev.profiledrollout.containers.VllmContainer}, declared on a profiled test class with
 * {@link dev.profiledrollout.RolloutEngine}. They implement {@link dev.profiledrollout.engine.ManagedEngine}, so the
 * extension starts them once per class, sends load to their mapped port and reads the traces they write into the
 * bind-mounted profiler directory.
 */
package dev.profiledrollout.containers;
