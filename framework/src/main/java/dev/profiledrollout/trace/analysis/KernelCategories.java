package dev.profiledrollout.trace.analysis;

import static org.apiguardian.api.API.Status.EXPERIMENTAL;

import dev.profiledrollout.trace.internal.NameMemo;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * An ordered list of rules that assigns a {@link KernelCategory} to a GPU kernel name: the <b>first</b> rule whose
 * regular expression is found anywhere in the name (case-insensitively, {@link java.util.regex.Matcher#find()})
 * wins; names no rule matches are {@link KernelCategory#OTHER}. Immutable and thread-safe (a per-instance cache
 * remembers each name's category).
 *
 * <pre>{@code
 * KernelCategories rules = KernelCategories.defaults()
 *         .withFirst(KernelCategory.GEMM, "my_fused_matmul");   // checked before the defaults
 * KernelCategory c = rules.categoryOf("void sglang::cross_device_reduce_1stage<…>(…)"); // COMMUNICATION
 * }</pre>
 *
 * <h2>Default rules (in order)</h2>
 * Chosen from the kernel names in the test traces of {@code testdata/traces/} (CUDA V100/A100 training, ROCm
 * MI300X SGLang decode), the simulator's cost model, and TraceLens' communication rule ({@code nccl|rccl} anywhere,
 * {@code cross_device_reduce}; {@code docs/TRACES.md} §4). Communication comes first so that
 * {@code ncclDevKernel_…Sum…} is not caught by a later rule; MoE before GEMM so that grouped expert GEMMs count as
 * MoE; attention before GEMM and normalisation.
 * Unlike HTA (§3.2), {@code hip*} names are not communication, and {@code rcclGenericKernel} and
 * {@code cross_device_reduce} are.
 */
@API(status = EXPERIMENTAL, since = "0.1")
public final class KernelCategories {

    /** One rule: a category and the pattern that selects it. */
    public record Rule(KernelCategory category, Pattern pattern) {
        public Rule {
            Objects.requireNonNull(category, "category");
            Objects.requireNonNull(pattern, "pattern");
        }
    }

    private static final KernelCategories DEFAULTS = new KernelCategories(List.of(
            rule(KernelCategory.COMMUNICATION, "nccl|rccl|cross_device_reduce|all_?reduce|allgather|all_gather"
                    + "|reduce_?scatter|alltoall|all_to_all|deep_?ep|custom_?ar|one_?shot|two_?shot|mscclpp"
                    + "|sendrecv|quickreduce"),
            rule(KernelCategory.MEMORY, "^memcpy|^memset|^dma|copybuffer|fillbuffer|catarraybatchedcopy"
                    + "|copy_kernel|direct_copy|memcpy_kernel|unrolled_elementwise_kernel.*copy"),
            rule(KernelCategory.MOE, "moe|fused_experts|expert|topk_?gating|grouped_topk|token_permut|unpermute"
                    + "|align_block_size|count_and_sort"),
            rule(KernelCategory.ATTENTION, "attention|attn|flashinfer::Batch(Decode|Prefill)|fmha|flash_?fwd"
                    + "|flash_?bwd|paged|mla|merge_state|kv_?cache|reshape_and_cache|decode_kernel|prefill_kernel"),
            rule(KernelCategory.GEMM, "gemm|cutlass|cublas|nvjet|^cijk_|hipblaslt|matmul|_mm_|wgrad|dgrad_engine"
                    + "|xmma|scudnn|sm\\d+_xmma|splitk|\\bmm\\b|bmm|wvsplitk|skinny"),
            rule(KernelCategory.NORMALIZATION, "rms_?norm|layer_?norm|layernorm|batch_?norm|bn_(fw|bw)|group_?norm"
                    + "|norm::|_norm_|normalize"),
            rule(KernelCategory.ACTIVATION, "silu|gelu|swiglu|geglu|act_and_mul|relu|activation|sigmoid|tanh"
                    + "|softplus"),
            rule(KernelCategory.SAMPLING, "sampling|topk|top_k|top_p|topp|argmax|multinomial|softmax|sort"
                    + "|radixsort|gumbel|sampler|penalt"),
            rule(KernelCategory.ELEMENTWISE, "elementwise|vectorized|reduce_kernel|unrolled|rotary|rope|embedding"
                    + "|index|gather|scatter|fill|cast|where|arange|cumsum|add|mul|scale|quant")));

    private final List<Rule> rules;
    private final NameMemo<KernelCategory> cache = new NameMemo<>(100_000, this::match);

    private KernelCategories(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** The default rules for CUDA and ROCm kernel names, described in the class comment. */
    public static KernelCategories defaults() {
        return DEFAULTS;
    }

    /** A rule list exactly as given (no defaults), in order. */
    public static KernelCategories of(List<Rule> rules) {
        return new KernelCategories(rules);
    }

    /** Builds a rule from a regular expression, compiled case-insensitively. */
    public static Rule rule(KernelCategory category, String regex) {
        return new Rule(category, Pattern.compile(regex, Pattern.CASE_INSENSITIVE));
    }

    /** These rules with {@code (category, regex)} checked before all of them. */
    public KernelCategories withFirst(KernelCategory category, String regex) {
        List<Rule> list = new ArrayList<>();
        list.add(rule(category, regex));
        list.addAll(rules);
        return new KernelCategories(list);
    }

    /** The rules, in the order they are tried. */
    public List<Rule> rules() {
        return rules;
    }

    /** Rules are matched against at most this many leading characters of a name. */
    public static final int MATCHED_PREFIX = 16_384;

    /**
     * The category of a kernel name: the first matching rule's, else {@link KernelCategory#OTHER}. Only the first
     * {@value #MATCHED_PREFIX} characters are matched.
     *
     * @param kernelName a kernel name as in the trace, not null
     */
    public KernelCategory categoryOf(String kernelName) {
        return cache.get(kernelName);
    }

    private KernelCategory match(String kernelName) {
        // Only a bounded prefix is matched, so a pathological name (megabytes long) costs no more than a real one;
        // real kernel names, template signatures included, are far shorter.
        CharSequence probe = kernelName.length() > MATCHED_PREFIX
                ? kernelName.subSequence(0, MATCHED_PREFIX) : kernelName;
        for (Rule r : rules) {
            if (r.pattern().matcher(probe).find()) {
                return r.category();
            }
        }
        return KernelCategory.OTHER;
    }
}
