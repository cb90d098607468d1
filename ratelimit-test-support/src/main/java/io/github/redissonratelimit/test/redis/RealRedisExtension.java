package io.github.redissonratelimit.test.redis;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Resolves {@link RedisEndpoint} parameters with the shared {@link TestRedis}. */
public final class RealRedisExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == RedisEndpoint.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return TestRedis.endpoint();
    }
}
