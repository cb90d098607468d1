package io.github.redissonratelimit.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.local.InstanceCount;

/**
 * The {@link InstanceCount} bean, obtained at its first use: the local fallback is created with the interceptor,
 * while post-processors are still being registered, and must not create the Redis client that early. Without such
 * a bean, {@code ratelimit.local-fallback.instances} (or 1) instances.
 */
final class LazyInstanceCount implements InstanceCount {

    private final SingletonSupplier<InstanceCount> count;

    LazyInstanceCount(ObjectProvider<InstanceCount> counts, int fixedInstances) {
        this.count = SingletonSupplier.of(() -> counts.getIfAvailable(
                () -> InstanceCount.fixed(Math.max(1, fixedInstances), 0)));
    }

    @Override
    public int instances() {
        return count.obtain().instances();
    }

    @Override
    public int rank() {
        return count.obtain().rank();
    }

    @Override
    public boolean othersDecidedInMemory() {
        return count.obtain().othersDecidedInMemory();
    }

    @Override
    public long othersInMemoryAt() {
        return count.obtain().othersInMemoryAt();
    }

    @Override
    public String source() {
        return count.obtain().source();
    }
}
