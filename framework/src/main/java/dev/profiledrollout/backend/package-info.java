/**
 * One seam per engine: {@link dev.profiledrollout.backend.BackendSupport} and its subclass per
 * {@link dev.profiledrollout.Backend} own what differs between SGLang, vLLM and TensorRT-LLM (client, profile
 * control, trace location, step annotations, request rules, recipe mapping, simulator mode). Nothing outside this
 * package branches on the backend.
 */
package dev.profiledrollout.backend;
