package io.github.redissonratelimit.interceptor;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.redisson.api.RedissonClient;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import io.github.redissonratelimit.local.DecisionStacks;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * A plain Spring context (no Boot) wired the way the auto-configuration wires it, on the test Redis,
 * with a listener that keeps every outcome.
 */
final class LimitedBeans implements AutoCloseable {

    private final AnnotationConfigApplicationContext context;
    private final List<List<RateLimitOutcome>> outcomes = new CopyOnWriteArrayList<>();

    private LimitedBeans(RedisEndpoint redis, RateLimitListener extra, Consumer<RateLimitInterceptor> customizer,
            Class<?>... beans) {
        AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
        ctx.registerBean(DefaultAdvisorAutoProxyCreator.class);
        ctx.registerBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"));
        AnnotationRateLimitOperationSource source = new AnnotationRateLimitOperationSource(
                new KeyExpressionParser(ctx.getBeanFactory()));
        ctx.registerBean(RateLimitAdvisor.class, () -> {
            RateLimitInterceptor interceptor = new RateLimitInterceptor(source,
                    () -> DecisionStacks.around(new RedissonRateLimitBackend(ctx.getBean(RedissonClient.class))));
            interceptor.setListeners(List.of(outcomes::add, extra));
            customizer.accept(interceptor);
            return new RateLimitAdvisor(source, interceptor);
        });
        for (Class<?> bean : beans) {
            ctx.registerBean(bean);
        }
        ctx.refresh();
        this.context = ctx;
    }

    static LimitedBeans start(RedisEndpoint redis, Class<?>... beans) {
        return new LimitedBeans(redis, outcomes -> { }, interceptor -> { }, beans);
    }

    /** With {@code listener} told every decision too, e.g. the metrics. */
    static LimitedBeans startWithListener(RedisEndpoint redis, RateLimitListener listener, Class<?>... beans) {
        return new LimitedBeans(redis, listener, interceptor -> { }, beans);
    }

    static LimitedBeans start(RedisEndpoint redis, Consumer<RateLimitInterceptor> customizer, Class<?>... beans) {
        return new LimitedBeans(redis, outcomes -> { }, customizer, beans);
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** What the listener was told, one list per call. */
    List<List<RateLimitOutcome>> outcomes() {
        return outcomes;
    }

    @Override
    public void close() {
        context.close();
    }
}
