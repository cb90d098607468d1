package io.github.redissonratelimit.autoconfigure.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.metrics.RateLimitBackendMetrics;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.metrics.RateLimitMetrics;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.outcome.RateLimitOutcome;

/**
 * The names the code has that the user pages may name: {@code @RateLimit}'s attributes, the constants of the public
 * enums of the starter's modules, the Actuator endpoint ids, and the meters with their tags. Read from the classes
 * (attributes, enum constants, meters as a registry holds them after each kind of decision) and, where only the
 * sources tell, from them (which enums exist, the endpoint ids, the meter names of the metrics classes).
 */
final class CodeNames {

    /** The modules whose public enums and endpoints the pages may name (their classes are on this test's path). */
    private static final List<String> MODULES = List.of("ratelimit-core", "ratelimit-spring-boot-autoconfigure");

    /** Spring Boot's own endpoints, which the pages name beside the starter's. */
    private static final Set<String> BOOT_ENDPOINTS = Set.of("health", "info", "metrics", "prometheus", "env",
            "beans", "loggers", "conditions", "configprops", "mappings", "threaddump", "heapdump");

    private static final Pattern PUBLIC_ENUM = Pattern.compile("public\\s+enum\\s+(\\w+)");

    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);

    private static final Pattern ENDPOINT_ID = Pattern.compile("@(?:Web)?Endpoint\\(id\\s*=\\s*\"([\\w-]+)\"");

    private static final Pattern METER_NAME = Pattern.compile("\"(ratelimit\\.[\\w.]+)\"");

    final Set<String> attributes;
    final Map<String, Set<String>> enums;
    final Set<String> endpoints;
    final Map<String, Set<String>> meterTags;
    final Set<String> results;
    /** The constants each enum-valued property takes, by the property's last element ({@code on-config-change}). */
    final Map<String, Set<String>> enumProperties;

    private CodeNames(Set<String> attributes, Map<String, Set<String>> enums, Set<String> endpoints,
            Map<String, Set<String>> meterTags, Set<String> results, Map<String, Set<String>> enumProperties) {
        this.attributes = attributes;
        this.enums = enums;
        this.endpoints = endpoints;
        this.meterTags = meterTags;
        this.results = results;
        this.enumProperties = enumProperties;
    }

    static CodeNames read() {
        Set<String> attributes = Arrays.stream(RateLimit.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toCollection(LinkedHashSet::new));
        Map<String, Set<String>> enums = new LinkedHashMap<>();
        Set<String> endpoints = new LinkedHashSet<>(BOOT_ENDPOINTS);
        Set<String> meterNames = new LinkedHashSet<>();
        Map<String, Set<String>> enumProperties = new LinkedHashMap<>();
        for (Path source : sources()) {
            String text = read(source);
            enumsOf(source, text, enums);
            if (source.getFileName().toString().endsWith("Properties.java")) {
                enumPropertiesOf(source, text, enumProperties);
            }
            ENDPOINT_ID.matcher(text).results().forEach(found -> endpoints.add(found.group(1)));
            if (source.toString().replace('\\', '/').matches(".*/metrics/[^/]+\\.java")) {
                METER_NAME.matcher(text).results().forEach(found -> meterNames.add(found.group(1)));
            }
        }
        Set<String> results = Arrays.stream(RateLimitOutcome.Result.values()).map(RateLimitOutcome.Result::tag)
                .collect(Collectors.toCollection(LinkedHashSet::new));
        return new CodeNames(attributes, enums, endpoints, meterTags(meterNames), results, enumProperties);
    }

    /** Whether {@code constant} is a constant of some public enum. */
    boolean isEnumConstant(String constant) {
        return enums.values().stream().anyMatch(constants -> constants.contains(constant));
    }

    /** The enum an attribute of {@code @RateLimit} takes ({@code TimeUnit} too), or null. */
    static Class<?> enumOfAttribute(String attribute) {
        try {
            Class<?> type = RateLimit.class.getDeclaredMethod(attribute).getReturnType();
            return type.isEnum() ? type : null;
        }
        catch (NoSuchMethodException ex) {
            return null;
        }
    }

    /**
     * Every meter name of the metrics classes with the tags its series carry: those the registry holds after the
     * decision metrics were told one decision of each result and the outage metrics one failure, one skip and a
     * circuit change; a meter they did not register (the local outage policy's) has none.
     */
    private static Map<String, Set<String>> meterTags(Set<String> meterNames) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RateLimitMetrics metrics = new RateLimitMetrics(registry);
        LimitSpec spec = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        for (RateLimitOutcome.Result result : RateLimitOutcome.Result.values()) {
            metrics.onOutcomes(List.of(new RateLimitOutcome("orders", "orders", "k", "rate_limit:{k}", spec, 1, result,
                    Duration.ZERO, Duration.ofMillis(1), null,
                    new LimitState(0, Duration.ZERO))));
        }
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("registry", registry);
        RateLimitBackendMetrics outages = new RateLimitBackendMetrics(beans.getBeanProvider(
                MeterRegistry.class));
        outages.onBackendFailure("rate_limit:{k}", new IllegalStateException("down"));
        outages.onBackendSkipped("rate_limit:{k}");
        outages.onCircuitStateChange("redis", CircuitState.CLOSED, CircuitState.OPEN);
        Map<String, Set<String>> tags = new LinkedHashMap<>();
        meterNames.forEach(name -> tags.put(name, new LinkedHashSet<>()));
        for (Meter meter : registry.getMeters()) {
            tags.computeIfAbsent(meter.getId().getName(), name -> new LinkedHashSet<>())
                    .addAll(meter.getId().getTags().stream().map(Tag::getKey).toList());
        }
        return tags;
    }

    /** The enum-valued fields of a properties class and its superclasses, by their names in kebab case. */
    private static void enumPropertiesOf(Path source, String text, Map<String, Set<String>> enumProperties) {
        Matcher packageName = PACKAGE.matcher(text);
        if (!packageName.find()) {
            return;
        }
        Class<?> type = load(packageName.group(1) + "." + source.getFileName().toString().replace(".java", ""), source);
        for (Class<?> current = type; current != null && current != Object.class; current = current.getSuperclass()) {
            for (java.lang.reflect.Field field : current.getDeclaredFields()) {
                if (field.getType().isEnum()) {
                    enumProperties.computeIfAbsent(field.getName().replaceAll("([A-Z])", "-$1").toLowerCase(),
                            name -> new LinkedHashSet<>()).addAll(Arrays.stream(field.getType().getEnumConstants())
                                    .map(constant -> ((Enum<?>) constant).name()).toList());
                }
            }
        }
    }

    private static Class<?> load(String className, Path source) {
        try {
            return Class.forName(className, false, CodeNames.class.getClassLoader());
        }
        catch (ClassNotFoundException ex) {
            throw new IllegalStateException(source + " declares no " + className, ex);
        }
    }

    private static void enumsOf(Path source, String text, Map<String, Set<String>> enums) {
        Matcher packageName = PACKAGE.matcher(text);
        if (!packageName.find()) {
            return;
        }
        String outer = source.getFileName().toString().replace(".java", "");
        Matcher found = PUBLIC_ENUM.matcher(text);
        while (found.find()) {
            String name = found.group(1);
            String className = packageName.group(1) + "." + (name.equals(outer) ? name : outer + "$" + name);
            try {
                Class<?> type = Class.forName(className, false, CodeNames.class.getClassLoader());
                if (type.isEnum() && Modifier.isPublic(type.getModifiers())) {
                    enums.put(name, Arrays.stream(type.getEnumConstants()).map(c -> ((Enum<?>) c).name())
                            .collect(Collectors.toCollection(LinkedHashSet::new)));
                }
            }
            catch (ClassNotFoundException ex) {
                throw new IllegalStateException("public enum " + name + " of " + source + " is not " + className, ex);
            }
        }
    }

    private static List<Path> sources() {
        return MODULES.stream().flatMap(module -> {
            try (Stream<Path> files = Files.walk(MarkdownFiles.ROOT.resolve(module).resolve("src/main/java"))) {
                return files.filter(file -> file.toString().endsWith(".java")).toList().stream();
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }).toList();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
