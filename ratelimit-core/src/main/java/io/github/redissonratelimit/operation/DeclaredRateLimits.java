package io.github.redissonratelimit.operation;

import java.util.Collection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The limits declared so far, after startup those of every bean, for what lists them (the actuator endpoint,
 * the check for policies no annotation names). Kept per method as its limits see it, the most specific
 * method of the user's class, so a method reached both through an interface and through its class, or
 * through a proxy, is listed once.
 */
public final class DeclaredRateLimits {

    private final Map<LimitedMethod, List<RateLimitOperation>> operations = new ConcurrentHashMap<>(256);
    private final Set<String> names = ConcurrentHashMap.newKeySet();
    private final List<RateLimitOperation> elsewhere = new CopyOnWriteArrayList<>();

    DeclaredRateLimits() {
    }

    /** The operations of {@code method}, built by {@code build} the first time only. */
    List<RateLimitOperation> operationsOf(LimitedMethod method, Supplier<List<RateLimitOperation>> build) {
        return operations.computeIfAbsent(method, ignored -> build.get());
    }

    /** Recorded before the declarations are validated: a name is declared even when its limit is disabled. */
    void recordNames(List<RateLimitDeclaration> declarations) {
        declarations.stream().map(RateLimitDeclaration::name).filter(name -> name != null).forEach(names::add);
    }

    /**
     * Records limits declared elsewhere than on a method (URL routes), so that they are listed, reset and
     * overridden by name like annotated ones. Their names, and the policies they take values from, count as declared.
     */
    public void declare(List<RateLimitOperation> declaredElsewhere) {
        elsewhere.addAll(declaredElsewhere);
        for (RateLimitOperation operation : declaredElsewhere) {
            names.add(operation.name());
            if (operation.policyName() != null) {
                names.add(operation.policyName());
            }
        }
    }

    /** Every limit, once. */
    public List<RateLimitOperation> operations() {
        List<RateLimitOperation> all = new ArrayList<>(elsewhere);
        operations.values().forEach(all::addAll);
        return List.copyOf(all);
    }

    /** The limits whose name or display name is {@code name}; several methods may share one. */
    public List<RateLimitOperation> named(String name) {
        return operations().stream()
                .filter(operation -> operation.name().equals(name) || operation.displayName().equals(name)).toList();
    }

    /** The {@code name}s declared (policies may be configured under them), including those of disabled limits. */
    public Set<String> names() {
        return Set.copyOf(names);
    }
}
