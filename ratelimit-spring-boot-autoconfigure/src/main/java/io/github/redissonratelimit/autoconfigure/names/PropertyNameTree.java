package io.github.redissonratelimit.autoconfigure.names;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;

/**
 * The names a {@code @ConfigurationProperties} class binds, read from its JavaBean properties as Spring Boot's binder
 * reads them: a property of a class of the same project is a group of its own properties, a {@link Map} takes any key
 * (then its value's properties, when the value is such a class), anything else is a value. Names are compared in
 * Spring Boot's uniform form (lower case, no dashes), so {@code key-prefix}, {@code keyPrefix} and {@code keyprefix}
 * are one name.
 */
final class PropertyNameTree {

    /** Placeholder of a map key in {@link #patterns()}. */
    static final String MAP_KEY = "<name>";

    private final Kind kind;
    private final Map<String, Child> children;
    private final PropertyNameTree mapValue;

    private PropertyNameTree(Kind kind, Map<String, Child> children, PropertyNameTree mapValue) {
        this.kind = kind;
        this.children = children;
        this.mapValue = mapValue;
    }

    /** The names {@code type}'s JavaBean properties bind, below its prefix. */
    static PropertyNameTree of(Class<?> type) {
        return bean(type, projectPackage(type));
    }

    /**
     * Whether {@code elements} (in uniform form, after the prefix) name a setting, a group or a map entry.
     * @param splitDashes whether the source splits dashed names into elements, as environment variables do
     * ({@code RATELIMIT_KEY_PREFIX} is {@code ratelimit.key.prefix})
     */
    boolean contains(List<String> elements, boolean splitDashes) {
        return matches(elements, 0, splitDashes);
    }

    /** Every setting, dashed, a map key written {@value #MAP_KEY}, e.g. {@code policies.<name>.tiers.<name>.rate}. */
    List<List<String>> patterns() {
        List<List<String>> patterns = new ArrayList<>();
        collect(new ArrayList<>(), patterns);
        return patterns;
    }

    /** The node reached by {@code pattern} (as {@link #patterns()} writes them), or null. */
    PropertyNameTree at(List<String> pattern) {
        PropertyNameTree node = this;
        for (String element : pattern) {
            node = node.kind == Kind.MAP ? node.mapValue : node.child(uniform(element));
            if (node == null) {
                return null;
            }
        }
        return node;
    }

    /** Whether the setting at this node takes any name below it (a map of values, a list). */
    boolean takesAnyDescendant() {
        return kind == Kind.OPEN;
    }

    private boolean matches(List<String> elements, int index, boolean splitDashes) {
        if (index == elements.size() || kind == Kind.OPEN) {
            return true;
        }
        return switch (kind) {
            case MAP -> mapValue.matches(elements, index + 1, splitDashes);
            case BEAN -> children.values().stream().anyMatch(child -> child.matches(elements, index, splitDashes));
            default -> false;
        };
    }

    private PropertyNameTree child(String uniformName) {
        Child child = children.get(uniformName);
        return child == null ? null : child.node;
    }

    private void collect(List<String> path, List<List<String>> patterns) {
        if (kind == Kind.VALUE || kind == Kind.OPEN) {
            patterns.add(List.copyOf(path));
        }
        else if (kind == Kind.MAP) {
            path.add(MAP_KEY);
            mapValue.collect(path, patterns);
            path.remove(path.size() - 1);
        }
        else {
            children.values().forEach(child -> {
                path.add(child.dashed);
                child.node.collect(path, patterns);
                path.remove(path.size() - 1);
            });
        }
    }

    private static PropertyNameTree bean(Class<?> type, String projectPackage) {
        Map<String, Child> children = new LinkedHashMap<>();
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            Method getter = property.getReadMethod();
            if (getter == null || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            PropertyNameTree node = node(ResolvableType.forMethodReturnType(getter), projectPackage);
            if (property.getWriteMethod() != null || node.kind == Kind.BEAN || node.kind == Kind.MAP) {
                String dashed = dashed(property.getName());
                children.put(uniform(dashed), new Child(dashed, node));
            }
        }
        return new PropertyNameTree(Kind.BEAN, children, null);
    }

    private static PropertyNameTree node(ResolvableType type, String projectPackage) {
        Class<?> raw = type.toClass();
        if (Map.class.isAssignableFrom(raw)) {
            PropertyNameTree value = node(type.asMap().getGeneric(1), projectPackage);
            return value.kind == Kind.BEAN ? new PropertyNameTree(Kind.MAP, Map.of(), value) : open();
        }
        if (Collection.class.isAssignableFrom(raw) || raw.isArray()) {
            return open();
        }
        if (!raw.isEnum() && !raw.isPrimitive() && projectPackage.equals(projectPackage(raw))) {
            return bean(raw, projectPackage);
        }
        return new PropertyNameTree(Kind.VALUE, Map.of(), null);
    }

    private static PropertyNameTree open() {
        return new PropertyNameTree(Kind.OPEN, Map.of(), null);
    }

    /** The first three parts of the package ({@code io.github.redissonratelimit}): classes there are groups. */
    private static String projectPackage(Class<?> type) {
        String[] parts = type.getPackageName().split("\\.");
        return String.join(".", List.of(parts).subList(0, Math.min(3, parts.length)));
    }

    static String dashed(String javaName) {
        return javaName.replaceAll("([A-Z])", "-$1").toLowerCase();
    }

    static String uniform(String name) {
        return name.replace("-", "").toLowerCase();
    }

    private enum Kind {
        /** A group of settings. */
        BEAN,
        /** A map whose values are groups: any key, then the group's settings. */
        MAP,
        /** One value. */
        VALUE,
        /** A value that takes any name below it: a map of values, a list. */
        OPEN
    }

    private record Child(String dashed, PropertyNameTree node) {

        /** Whether this child takes {@code elements} from {@code index}, as one element or dash by dash. */
        boolean matches(List<String> elements, int index, boolean splitDashes) {
            if (uniform(dashed).equals(elements.get(index))) {
                return node.matches(elements, index + 1, splitDashes);
            }
            if (!splitDashes || !dashed.contains("-")) {
                return false;
            }
            String[] parts = dashed.split("-");
            if (index + parts.length > elements.size()) {
                return false;
            }
            for (int i = 0; i < parts.length; i++) {
                if (!parts[i].equals(elements.get(index + i))) {
                    return false;
                }
            }
            return node.matches(elements, index + parts.length, splitDashes);
        }
    }
}
