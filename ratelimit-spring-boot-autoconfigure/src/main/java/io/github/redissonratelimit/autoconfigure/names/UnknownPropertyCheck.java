package io.github.redissonratelimit.autoconfigure.names;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.github.redissonratelimit.log.LogSafe;

/**
 * Finds the properties under a prefix that the {@code @ConfigurationProperties} class bound there has no setting for,
 * which Spring Boot would ignore: a misspelt name ({@code ratelimit.polices.x.rate}) leaves the limit it meant to set
 * as it was. Reads every iterable property source of the {@link Environment} (files, system properties, environment
 * variables, test properties), relaxed names included; each unknown name gets the valid name nearest to it.
 */
public final class UnknownPropertyCheck {

    private static final Log logger = LogFactory.getLog(UnknownPropertyCheck.class);

    private final ConfigurationPropertyName prefix;
    private final PropertyNameTree names;

    /** Checks the names under {@code prefix} against the JavaBean properties of {@code type}. */
    public UnknownPropertyCheck(String prefix, Class<?> type) {
        this.prefix = ConfigurationPropertyName.of(prefix);
        this.names = PropertyNameTree.of(type);
    }

    /**
     * Acts on the unknown properties as {@code <prefix>.unknown-properties} says (default {@code fail}).
     * @throws UnknownRateLimitPropertiesException when there are unknown properties and the action is {@code fail}
     */
    public void check(Environment environment) {
        UnknownPropertyAction action = Binder.get(environment)
                .bind(prefix.append("unknown-properties"), Bindable.of(UnknownPropertyAction.class))
                .orElse(UnknownPropertyAction.FAIL);
        if (action == UnknownPropertyAction.IGNORE) {
            return;
        }
        List<UnknownProperty> unknown = find(environment);
        if (unknown.isEmpty()) {
            return;
        }
        if (action == UnknownPropertyAction.FAIL) {
            throw new UnknownRateLimitPropertiesException(unknown);
        }
        logger.warn(LogSafe.text("Ignoring properties that name no setting (" + prefix
                + ".unknown-properties=warn): " + unknown.stream().map(UnknownProperty::describe)
                        .collect(Collectors.joining("; "))));
    }

    /** The properties under the prefix that name no setting, each once, in the order of the sources. */
    public List<UnknownProperty> find(Environment environment) {
        Map<String, UnknownProperty> unknown = new LinkedHashMap<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                boolean splitDashes = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
                iterable.stream().filter(prefix::isAncestorOf)
                        .filter(name -> !names.contains(elementsBelowPrefix(name), splitDashes))
                        .forEach(name -> unknown.computeIfAbsent(name.toString(),
                                key -> unknownProperty(iterable, name, splitDashes)));
            }
        }
        return new ArrayList<>(unknown.values());
    }

    private UnknownProperty unknownProperty(ConfigurationPropertySource source, ConfigurationPropertyName name,
            boolean splitDashes) {
        ConfigurationProperty property = source.getConfigurationProperty(name);
        return new UnknownProperty(name.toString(), property == null ? null : property.getOrigin(),
                prefix + "." + String.join(".", nearest(name, splitDashes)));
    }

    /** The valid name nearest to {@code name} by edit distance, map keys taken from {@code name}. */
    private List<String> nearest(ConfigurationPropertyName name, boolean splitDashes) {
        List<String> elements = IntStream.range(prefix.getNumberOfElements(), name.getNumberOfElements())
                .mapToObj(i -> name.getElement(i, Form.ORIGINAL)).toList();
        String written = comparable(elements, splitDashes);
        return names.patterns().stream().map(pattern -> withKeys(pattern, elements))
                .min(Comparator.comparingInt(candidate -> distance(written, comparable(candidate, splitDashes))))
                .orElseThrow();
    }

    private static List<String> withKeys(List<String> pattern, List<String> elements) {
        return IntStream.range(0, pattern.size())
                .mapToObj(i -> PropertyNameTree.MAP_KEY.equals(pattern.get(i)) && i < elements.size()
                        ? elements.get(i) : pattern.get(i))
                .toList();
    }

    private static String comparable(List<String> elements, boolean splitDashes) {
        String joined = elements.stream().map(element -> element.toLowerCase()).collect(Collectors.joining("."));
        return splitDashes ? joined.replace('-', '.') : joined.replace("-", "");
    }

    private List<String> elementsBelowPrefix(ConfigurationPropertyName name) {
        return IntStream.range(prefix.getNumberOfElements(), name.getNumberOfElements())
                .mapToObj(i -> name.getElement(i, Form.UNIFORM)).toList();
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = IntStream.rangeClosed(0, b.length()).toArray();
        for (int i = 1; i <= a.length(); i++) {
            int[] current = new int[b.length() + 1];
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            previous = current;
        }
        return previous[b.length()];
    }
}
