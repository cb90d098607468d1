package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.expression.ParseException;
import org.springframework.util.ClassUtils;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.KeyExpression;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * Reads {@link RateLimit} from methods, their interfaces and superclasses, their classes, and
 * meta-annotations, through {@link MergedAnnotations}. A method-level annotation wins over a
 * class-level one; a class-level annotation applies to the class's public methods.
 *
 * <p>Each value comes from, in order: the limit's policy ({@link RateLimitPolicies#policy}, found by
 * the annotation's {@code name}), the annotation, the policies' defaults, the built-in default. A
 * policy with {@code enabled = false} removes the limit.
 *
 * <p>Each (method, target class) is parsed and validated once; the result is cached.
 */
public class AnnotationRateLimitOperationSource implements RateLimitOperationSource {

    private static final List<RateLimitOperation> NONE = List.of();

    private final KeyExpressionParser keyParser;
    private final RateLimitPolicies policies;
    private final Map<MethodClassKey, List<RateLimitOperation>> cache = new ConcurrentHashMap<>(256);
    private final Set<String> declaredNames = ConcurrentHashMap.newKeySet();

    public AnnotationRateLimitOperationSource(KeyExpressionParser keyParser) {
        this(keyParser, RateLimitPolicies.NONE);
    }

    public AnnotationRateLimitOperationSource(KeyExpressionParser keyParser, RateLimitPolicies policies) {
        this.keyParser = keyParser;
        this.policies = policies;
    }

    public RateLimitPolicies policies() {
        return policies;
    }

    @Override
    public Set<String> declaredNames() {
        return Set.copyOf(declaredNames);
    }

    @Override
    public boolean isCandidateClass(Class<?> targetClass) {
        return AnnotationUtils.isCandidateClass(targetClass, RateLimit.class);
    }

    @Override
    public List<RateLimitOperation> getOperations(Method method, Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class) {
            return NONE;
        }
        MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
        List<RateLimitOperation> operations = cache.get(cacheKey);
        if (operations == null) {
            operations = computeOperations(method, targetClass);
            cache.put(cacheKey, operations);
        }
        return operations;
    }

    private List<RateLimitOperation> computeOperations(Method method, Class<?> targetClass) {
        Class<?> userClass = targetClass != null ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
        Method specific = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, userClass));
        String description = describe(specific, userClass);

        List<MergedAnnotation<RateLimit>> onMethod = annotations(MergedAnnotations.from(specific, SearchStrategy.TYPE_HIERARCHY));
        if (!onMethod.isEmpty()) {
            String defaultName = userClass.getName() + "." + specific.getName();
            return build(onMethod, specific, description, defaultName);
        }
        if (!Modifier.isPublic(specific.getModifiers()) || Modifier.isStatic(specific.getModifiers())) {
            return NONE;
        }
        List<MergedAnnotation<RateLimit>> onClass = annotations(MergedAnnotations.from(userClass, SearchStrategy.TYPE_HIERARCHY));
        return onClass.isEmpty() ? NONE : build(onClass, specific, description, userClass.getName());
    }

    private static List<MergedAnnotation<RateLimit>> annotations(MergedAnnotations annotations) {
        MergedAnnotation<RateLimit> nearest = annotations.get(RateLimit.class);
        return nearest.isPresent() ? List.of(nearest) : List.of();
    }

    private List<RateLimitOperation> build(List<MergedAnnotation<RateLimit>> annotations, Method method,
            String description, String defaultName) {
        return annotations.stream().map(annotation -> build(annotation, method, description, defaultName))
                .filter(Objects::nonNull).collect(Collectors.toUnmodifiableList());
    }

    /** Merges one annotation with its policy and the defaults, validates, and turns it into an operation. */
    protected RateLimitOperation build(MergedAnnotation<RateLimit> annotation, Method method, String description,
            String defaultName) {
        String declaredName = annotation.getString("name").trim();
        if (!declaredName.isEmpty()) {
            declaredNames.add(declaredName);
        }
        PolicyValues policy = declaredName.isEmpty() ? null : policies.policy(declaredName);
        if (policy == null && !declaredName.isEmpty() && policies.policiesRequired()) {
            throw new InvalidRateLimitException(description, "name", "\"" + declaredName + "\" has no policy "
                    + "configured, and policies are required",
                    "configure " + policies.describePolicyValue(declaredName, "rate") + " (and interval), or fix "
                            + "the name; configured policies: " + policies.names(), null);
        }
        if (policy != null && policy.isDisabled()) {
            return null;
        }
        ValueResolver values = new ValueResolver(declaredName, policy, policies);

        if (annotation.getLong("rate") < 0) {
            throw new InvalidRateLimitException(description, "rate", "must be greater than 0 but was "
                    + annotation.getLong("rate"), "declare how many calls a window allows, e.g. "
                            + "@RateLimit(rate = 10, interval = 1)", null);
        }
        Sourced<Long> rate = values.resolve("rate", PolicyValues::rate, positive(annotation.getLong("rate")), null);
        if (rate == null) {
            throw new InvalidRateLimitException(description, "rate", "is not set",
                    "declare how many calls a window allows, e.g. @RateLimit(rate = 10, interval = 1)"
                            + (declaredName.isEmpty() ? "" : ", or set " + policies.describePolicyValue(declaredName, "rate")),
                    null);
        }
        if (rate.value() <= 0) {
            throw new InvalidRateLimitException(description, rate.origin(), "must be greater than 0 but was "
                    + rate.value(), "configure a positive rate", null);
        }
        Sourced<Duration> interval = values.resolve("interval", PolicyValues::interval,
                annotationInterval(annotation, description), Duration.ofSeconds(1));
        if (interval.value().toMillis() <= 0) {
            throw new InvalidRateLimitException(description, interval.origin(), "must be at least 1ms but was "
                    + interval.value(), "Redis keeps time in milliseconds: use a window of at least 1ms", null);
        }
        RateLimitMode declaredMode = annotation.hasDefaultValue("mode") ? null
                : annotation.getEnum("mode", RateLimitMode.class);
        Sourced<RateLimitMode> mode = values.resolve("mode", PolicyValues::mode, declaredMode, RateLimitMode.OVERALL);
        long declaredPermits = annotation.getLong("permits");
        if (declaredPermits < 0) {
            throw new InvalidRateLimitException(description, "permits", "must be greater than 0 but was "
                    + declaredPermits, "remove permits (a call takes 1) or set it to a positive number", null);
        }
        Sourced<Long> permits = values.resolve("permits", PolicyValues::permits, positive(declaredPermits), 1L);
        if (permits.value() <= 0) {
            throw new InvalidRateLimitException(description, permits.origin(), "must be greater than 0 but was "
                    + permits.value(), "remove it (a call takes 1) or set it to a positive number", null);
        }
        if (permits.value() > rate.value()) {
            throw new InvalidRateLimitException(description, permits.origin(), "(" + permits.value()
                    + ") exceeds " + rate.origin() + " (" + rate.value() + "), so no call could ever be allowed",
                    "lower permits or raise rate", null);
        }
        KeyExpression key = parseKey(annotation.getString("key"), method, description);
        String name = declaredName.isEmpty() ? defaultName : declaredName;
        return new RateLimitOperation(description, name, key, new LimitSpec(rate.value(), interval.value(), mode.value()),
                permits.value(), annotation.getString("message"), declaredName.isEmpty() ? null : declaredName,
                values.source(), annotation.getEnum("onBackendError", BackendErrorPolicy.class));
    }

    private static Long positive(long value) {
        return value > 0 ? value : null;
    }

    private KeyExpression parseKey(String expression, Method method, String description) {
        if (expression.isBlank()) {
            return null;
        }
        KeyExpression key;
        try {
            key = keyParser.parse(expression, method, description);
        }
        catch (ParseException ex) {
            throw new InvalidRateLimitException(description, "key", "\"" + expression + "\" is not valid SpEL ("
                    + ex.getMessage() + ")", "correct the expression, e.g. key = \"'order:' + #userId\"; string "
                    + "literals need single quotes", ex);
        }
        List<String> unknown = key.unknownVariables();
        if (!unknown.isEmpty()) {
            String[] names = key.parameterNames();
            int count = method.getParameterCount();
            String known = names == null ? "#p0..#p" + (count - 1) + " (parameter names are not available: "
                    + "compile with -parameters to use them)"
                    : Stream.of(names).map(n -> "#" + n).collect(Collectors.joining(", "))
                            + (count == 0 ? "" : ", #p0..#p" + (count - 1));
            throw new InvalidRateLimitException(description, "key", "\"" + expression + "\" refers to "
                    + unknown.stream().map(v -> "#" + v).collect(Collectors.joining(", "))
                    + ", which the method does not have", count == 0 ? "the method has no parameters: use a "
                            + "constant, a @bean reference or remove the key"
                            : "use one of its parameters: " + known, null);
        }
        return key;
    }

    private static Duration annotationInterval(MergedAnnotation<RateLimit> annotation, String description) {
        String window = annotation.getString("window");
        long interval = annotation.getLong("interval");
        TimeUnit unit = annotation.getEnum("unit", TimeUnit.class);
        if (!window.isBlank()) {
            if (interval != 0) {
                throw new InvalidRateLimitException(description, "window", "is set together with interval",
                        "use either window = \"" + window + "\" or interval + unit", null);
            }
            try {
                return DurationText.parse(window);
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidRateLimitException(description, "window", ex.getMessage(),
                        "write a duration such as \"500ms\", \"60s\", \"1m\" or \"PT1M\"", ex);
            }
        }
        if (interval < 0) {
            throw new InvalidRateLimitException(description, "interval", "must be greater than 0 but was " + interval,
                    "set a positive interval, e.g. interval = 60 (seconds)", null);
        }
        if (interval == 0) {
            return null;
        }
        Duration duration = Duration.ofNanos(unit.toNanos(interval));
        if (duration.toMillis() <= 0) {
            throw new InvalidRateLimitException(description, "interval", "is shorter than 1ms (" + interval + " "
                    + unit + ")", "Redis keeps time in milliseconds: use an interval of at least 1ms", null);
        }
        return duration;
    }

    static String describe(Method method, Class<?> targetClass) {
        return targetClass.getName() + "." + method.getName() + Stream.of(method.getParameterTypes())
                .map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
