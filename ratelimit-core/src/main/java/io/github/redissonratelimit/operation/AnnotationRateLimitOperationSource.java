package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.ConditionExpression;
import io.github.redissonratelimit.key.KeyExpression;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * Reads {@link RateLimit} from methods, their interfaces and superclasses, their classes, and
 * meta-annotations, through {@link MergedAnnotations}. A method-level annotation wins over a
 * class-level one; a class-level annotation applies to the class's public methods. Repeated
 * annotations ({@link io.github.redissonratelimit.annotation.RateLimits}) on the nearest element that
 * has any all apply, in declaration order.
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
            return build(onMethod, specific, userClass, description, defaultName,
                    userClass.getSimpleName() + "." + specific.getName());
        }
        if (!Modifier.isPublic(specific.getModifiers()) || Modifier.isStatic(specific.getModifiers())) {
            return NONE;
        }
        List<MergedAnnotation<RateLimit>> onClass = annotations(MergedAnnotations.from(userClass, SearchStrategy.TYPE_HIERARCHY));
        return onClass.isEmpty() ? NONE : build(onClass, specific, userClass, description, userClass.getName(),
                userClass.getSimpleName());
    }

    /** Every {@code @RateLimit} (repeated or meta-present) of the nearest element that has one. */
    private static List<MergedAnnotation<RateLimit>> annotations(MergedAnnotations annotations) {
        List<MergedAnnotation<RateLimit>> all = annotations.stream(RateLimit.class).collect(Collectors.toList());
        if (all.size() <= 1) {
            return all;
        }
        int nearest = all.stream().mapToInt(MergedAnnotation::getAggregateIndex).min().getAsInt();
        return all.stream().filter(annotation -> annotation.getAggregateIndex() == nearest).collect(Collectors.toList());
    }

    private List<RateLimitOperation> build(List<MergedAnnotation<RateLimit>> annotations, Method method,
            Class<?> userClass, String description, String defaultName, String defaultDisplayName) {
        List<RateLimitOperation> operations = new java.util.ArrayList<>(annotations.size());
        for (MergedAnnotation<RateLimit> annotation : annotations) {
            RateLimitOperation operation = build(annotation, method, description, defaultName);
            if (operation != null) {
                operations.add(withCallOptions(operation, annotation, method, userClass, description, defaultDisplayName));
            }
        }
        checkDistinctLimiters(operations, description);
        return List.copyOf(operations);
    }

    /**
     * Several limits of one method that resolve to the same limiter would share one bucket in Redis, set
     * up with whichever rate came first: refuse them, naming what to change.
     */
    private static void checkDistinctLimiters(List<RateLimitOperation> operations, String description) {
        Map<String, RateLimitOperation> seen = new java.util.HashMap<>();
        for (RateLimitOperation operation : operations) {
            String identity = operation.key() == null ? "name " + operation.name() : "key " + operation.key().source();
            RateLimitOperation first = seen.putIfAbsent(identity, operation);
            if (first == null) {
                continue;
            }
            String window = shortWindow(operation.spec().interval());
            if (operation.key() == null) {
                throw new InvalidRateLimitException(description, "name", "\"" + operation.name() + "\" is the same for "
                        + first.spec() + " and " + operation.spec() + ", so both would use one limiter in Redis",
                        "give each @RateLimit of the method its own name, e.g. name = \"" + operation.displayName()
                                + "-" + window + "\"", null);
            }
            throw new InvalidRateLimitException(description, "key", "\"" + operation.key().source() + "\" is the same for "
                    + first.spec() + " and " + operation.spec() + ", so both would use one limiter in Redis",
                    "give each @RateLimit of the method its own key, e.g. key = \"" + operation.key().source()
                            + " + ':" + window + "'\"", null);
        }
    }

    /** {@code 1h}, {@code 30s}, {@code 500ms}: for suggested names. */
    private static String shortWindow(Duration interval) {
        long millis = interval.toMillis();
        if (millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1_000 == 0 ? millis / 1_000 + "s" : millis + "ms";
    }

    /** Every limit this source has built so far: after startup, those of every proxied bean. */
    @Override
    public Collection<RateLimitOperation> declaredOperations() {
        Collection<RateLimitOperation> all = new LinkedHashSet<>();
        cache.values().forEach(all::addAll);
        return all;
    }

    /**
     * Adds what happens around the acquire (display name, waiting, conditions, fallback) to an operation
     * built by {@link #build(MergedAnnotation, Method, String, String)}.
     */
    protected RateLimitOperation withCallOptions(RateLimitOperation operation, MergedAnnotation<RateLimit> annotation,
            Method method, Class<?> userClass, String description, String defaultDisplayName) {
        String declaredName = annotation.getString("name").trim();
        String displayName = declaredName.isEmpty() ? defaultDisplayName : declaredName;
        Duration waitTimeout = waitTimeout(annotation.getString("waitTimeout"), description);
        ConditionExpression condition = parseCondition(annotation.getString("condition"), "condition", method, description);
        ConditionExpression skipIf = parseCondition(annotation.getString("skipIf"), "skipIf", method, description);
        String fallbackName = annotation.getString("fallback").trim();
        FallbackMethod fallback = fallbackName.isEmpty() ? null
                : FallbackMethod.resolve(userClass, method, fallbackName, description);
        return new RateLimitOperation(operation.method(), operation.name(), operation.key(), operation.spec(),
                operation.permits(), operation.message(), operation.policyName(), operation.source(),
                operation.backendErrorPolicy(), displayName, waitTimeout, condition, skipIf, fallback);
    }

    private static Duration waitTimeout(String text, String description) {
        if (text.isBlank()) {
            return Duration.ZERO;
        }
        try {
            return DurationText.parse(text);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidRateLimitException(description, "waitTimeout", ex.getMessage(),
                    "write a duration such as \"500ms\", \"2s\" or \"PT1S\", or leave it empty to reject at once", ex);
        }
    }

    private ConditionExpression parseCondition(String expression, String attribute, Method method, String description) {
        if (expression.isBlank()) {
            return null;
        }
        ConditionExpression condition;
        try {
            condition = keyParser.parseCondition(expression, attribute, method, description);
        }
        catch (ParseException ex) {
            throw new InvalidRateLimitException(description, attribute, "\"" + expression + "\" is not valid SpEL ("
                    + ex.getMessage() + ")", "correct the expression, e.g. " + attribute
                    + " = \"#userId != 'admin'\"; string literals need single quotes", ex);
        }
        if (!condition.unknownVariables().isEmpty()) {
            String[] names = condition.parameterNames();
            int count = method.getParameterCount();
            String known = count == 0 ? "the method has no parameters: use a constant or a @bean reference"
                    : "use one of its parameters: " + (names == null ? "#p0..#p" + (count - 1)
                            + " (parameter names are not available: compile with -parameters to use them)"
                            : Stream.of(names).map(n -> "#" + n).collect(Collectors.joining(", "))
                                    + ", #p0..#p" + (count - 1));
            throw new InvalidRateLimitException(description, attribute, "\"" + expression + "\" refers to "
                    + condition.unknownVariables().stream().map(v -> "#" + v).collect(Collectors.joining(", "))
                    + ", which the method does not have", known, null);
        }
        return condition;
    }

    /**
     * Merges one annotation with its policy and the defaults, validates, and turns it into an operation;
     * null when its policy disables it.
     */
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
                values.source(), onBackendError(policy, annotation));
    }

    /** The policy's value (when it sets one other than DEFAULT) wins over the annotation's. */
    private static BackendErrorPolicy onBackendError(PolicyValues policy, MergedAnnotation<RateLimit> annotation) {
        BackendErrorPolicy fromPolicy = policy == null ? null : policy.onBackendError();
        return fromPolicy != null && fromPolicy != BackendErrorPolicy.DEFAULT ? fromPolicy
                : annotation.getEnum("onBackendError", BackendErrorPolicy.class);
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
