package io.github.redissonratelimit.operation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * <p>Each (method, target class) is parsed and validated once; the result is cached.
 */
public class AnnotationRateLimitOperationSource implements RateLimitOperationSource {

    private static final List<RateLimitOperation> NONE = List.of();

    private final KeyExpressionParser keyParser;
    private final Map<MethodClassKey, List<RateLimitOperation>> cache = new ConcurrentHashMap<>(256);

    public AnnotationRateLimitOperationSource(KeyExpressionParser keyParser) {
        this.keyParser = keyParser;
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
                .collect(Collectors.toUnmodifiableList());
    }

    /** Validates one annotation and turns it into an operation. */
    protected RateLimitOperation build(MergedAnnotation<RateLimit> annotation, Method method, String description,
            String defaultName) {
        String name = annotation.getString("name");
        if (name.isBlank()) {
            name = defaultName;
        }
        long rate = annotation.getLong("rate");
        if (rate <= 0) {
            throw new InvalidRateLimitException(description, "rate", "must be greater than 0 but was " + rate,
                    "declare how many calls an interval allows, e.g. @RateLimit(rate = 10, interval = 1)", null);
        }
        Duration interval = interval(annotation, description);
        RateLimitMode mode = annotation.getEnum("mode", RateLimitMode.class);
        long permits = annotation.getLong("permits");
        if (permits <= 0) {
            throw new InvalidRateLimitException(description, "permits", "must be greater than 0 but was " + permits,
                    "remove permits (a call takes 1) or set it to a positive number", null);
        }
        if (permits > rate) {
            throw new InvalidRateLimitException(description, "permits", "(" + permits + ") exceeds rate (" + rate
                    + "), so no call could ever be allowed", "lower permits or raise rate", null);
        }
        KeyExpression key = parseKey(annotation.getString("key"), method, description);
        return new RateLimitOperation(description, name, key, new LimitSpec(rate, interval, mode), permits,
                annotation.getString("message"));
    }

    private KeyExpression parseKey(String expression, Method method, String description) {
        if (expression.isBlank()) {
            return null;
        }
        try {
            return keyParser.parse(expression, method, description);
        }
        catch (ParseException ex) {
            throw new InvalidRateLimitException(description, "key", "\"" + expression + "\" is not valid SpEL ("
                    + ex.getMessage() + ")", "correct the expression, e.g. key = \"'order:' + #userId\"; string "
                    + "literals need single quotes", ex);
        }
    }

    private static Duration interval(MergedAnnotation<RateLimit> annotation, String description) {
        String window = annotation.getString("window");
        long interval = annotation.getLong("interval");
        TimeUnit unit = annotation.getEnum("unit", TimeUnit.class);
        if (!window.isBlank()) {
            if (interval != 1 || unit != TimeUnit.SECONDS) {
                throw new InvalidRateLimitException(description, "window", "is set together with interval/unit",
                        "use either window = \"" + window + "\" or interval + unit", null);
            }
            Duration parsed;
            try {
                parsed = DurationText.parse(window);
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidRateLimitException(description, "window", ex.getMessage(),
                        "write a duration such as \"500ms\", \"60s\", \"1m\" or \"PT1M\"", ex);
            }
            if (parsed.toMillis() <= 0) {
                throw new InvalidRateLimitException(description, "window", "must be at least 1ms but was " + window,
                        "use a positive window", null);
            }
            return parsed;
        }
        if (interval <= 0) {
            throw new InvalidRateLimitException(description, "interval", "must be greater than 0 but was " + interval,
                    "set a positive interval, e.g. interval = 60 (seconds)", null);
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
