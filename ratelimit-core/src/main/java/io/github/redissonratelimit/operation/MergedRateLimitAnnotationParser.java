package io.github.redissonratelimit.operation;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.operation.RateLimitDeclaration.DeclaredWindow;

/**
 * Reads {@link RateLimit} through Spring's {@link MergedAnnotations}: directly present, repeated
 * ({@link io.github.redissonratelimit.annotation.RateLimits}), on a composed annotation, or inherited from a
 * superclass or interface. Repeated annotations on the nearest element that has any all apply, in
 * declaration order; farther ones are overridden.
 */
final class MergedRateLimitAnnotationParser implements RateLimitAnnotationParser {

    @Override
    public boolean isCandidateClass(Class<?> targetClass) {
        return AnnotationUtils.isCandidateClass(targetClass, RateLimit.class);
    }

    @Override
    public List<RateLimitDeclaration> parse(Method method) {
        return parseNearest(method);
    }

    @Override
    public List<RateLimitDeclaration> parse(Class<?> type) {
        return parseNearest(type);
    }

    private static List<RateLimitDeclaration> parseNearest(AnnotatedElement element) {
        List<MergedAnnotation<RateLimit>> all = MergedAnnotations.from(element, SearchStrategy.TYPE_HIERARCHY)
                .stream(RateLimit.class).toList();
        int nearest = all.stream().mapToInt(MergedAnnotation::getAggregateIndex).min().orElse(0);
        return all.stream().filter(annotation -> annotation.getAggregateIndex() == nearest)
                .map(MergedRateLimitAnnotationParser::declaration).toList();
    }

    private static RateLimitDeclaration declaration(MergedAnnotation<RateLimit> annotation) {
        return new RateLimitDeclaration(trimmed(annotation, "name"), text(annotation, "key"),
                annotation.getLong("rate"),
                new DeclaredWindow(text(annotation, "window"), annotation.getLong("interval"),
                        annotation.getEnum("unit", TimeUnit.class)),
                annotation.getEnum("mode", RateLimitMode.class), annotation.getLong("permits"),
                annotation.getString("message"), annotation.getEnum("onBackendError", BackendErrorPolicy.class),
                text(annotation, "waitTimeout"), trimmed(annotation, "fallback"),
                text(annotation, "condition"), text(annotation, "skipIf"), text(annotation, "cost"),
                annotation.getBoolean("shadow"), text(annotation, "tier"), text(annotation, "chargeWhen"),
                annotation.getEnum("algorithm", RateLimitAlgorithm.class), annotation.getLong("burst"),
                annotation.getEnum("calendar", CalendarPeriod.class), text(annotation, "lease"));
    }

    /** The text as written, or {@code null} when blank. */
    private static String text(MergedAnnotation<RateLimit> annotation, String attribute) {
        String text = annotation.getString(attribute);
        return text.isBlank() ? null : text;
    }

    /** The text without surrounding blanks, or {@code null} when blank. */
    private static String trimmed(MergedAnnotation<RateLimit> annotation, String attribute) {
        String text = annotation.getString(attribute).trim();
        return text.isEmpty() ? null : text;
    }
}
