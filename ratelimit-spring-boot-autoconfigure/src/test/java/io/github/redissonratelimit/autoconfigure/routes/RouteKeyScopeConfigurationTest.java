package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.operation.CallerKey;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * {@code ratelimit.routes.<name>.key-scope}: a keyed route's limiters are its own unless shared, and routes that
 * share a key's limiter must agree on its limit.
 */
class RouteKeyScopeConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitRoutesAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient)
            .withPropertyValues("ratelimit.routes.api.paths=/api/**", "ratelimit.routes.api.key=remoteAddress",
                    "ratelimit.routes.api.rate=3", "ratelimit.routes.export.paths=/api/export/**",
                    "ratelimit.routes.export.key=remoteAddress", "ratelimit.routes.export.rate=10");

    private CallerKey callerKeyOf(org.springframework.context.ApplicationContext context, String route) {
        return context.getBean(RateLimitOperationSource.class).declaredLimits().named(route).get(0).callerKey();
    }

    @Test
    void aKeyedRoutesCallersAreItsOwnByDefault() {
        runner.withPropertyValues("ratelimit.routes.open.paths=/open", "ratelimit.routes.open.rate=1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(callerKeyOf(context, "api")).isEqualTo(new CallerKey("remoteAddress", "api:"));
                    assertThat(callerKeyOf(context, "export")).isEqualTo(new CallerKey("remoteAddress", "export:"));
                    assertThat(callerKeyOf(context, "open")).as("one limiter, no callers").isNull();
                });
    }

    @Test
    void sharedRoutesKeyedAlikeWithDifferentLimitsFailStartupNamingBoth() {
        runner.withPropertyValues("ratelimit.routes.api.key-scope=shared", "ratelimit.routes.export.key-scope=shared")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("ratelimit.routes.export.key-scope")
                        .hasMessageContaining("routes 'api' (3 per PT1S) and 'export' (10 per PT1S) are both keyed by "
                                + "remoteAddress in the shared scope")
                        .hasMessageContaining("remove key-scope"));
    }

    @Test
    void sharedRoutesKeyedAlikeMayShareALimitTheyAgreeOn() {
        runner.withPropertyValues("ratelimit.routes.api.key-scope=shared", "ratelimit.routes.export.key-scope=shared",
                "ratelimit.routes.export.rate=3").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(callerKeyOf(context, "api")).isEqualTo(new CallerKey("remoteAddress", ""));
                });
    }

    @Test
    void aSharedRouteAndARouteOfItsOwnKeyedAlikeDoNotMeet() {
        runner.withPropertyValues("ratelimit.routes.api.key-scope=shared").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(callerKeyOf(context, "export")).isEqualTo(new CallerKey("remoteAddress", "export:"));
        });
    }

    @Test
    void aSharedScopeWithoutAKeyFailsStartup() {
        runner.withPropertyValues("ratelimit.routes.open.paths=/open", "ratelimit.routes.open.rate=1",
                "ratelimit.routes.open.key-scope=shared").run(context -> assertThat(context).hasFailed().getFailure()
                        .rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("ratelimit.routes.open.key-scope")
                        .hasMessageContaining("set ratelimit.routes.open.key, or remove key-scope"));
    }

    @Test
    void sharedRoutesWhoseTiersDifferFailStartup() {
        runner.withPropertyValues("ratelimit.routes.api.key-scope=shared", "ratelimit.routes.export.key-scope=shared",
                "ratelimit.routes.export.rate=3", "ratelimit.routes.export.tier=header['X-Plan']",
                "ratelimit.routes.export.tiers.gold.rate=30")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("tier gold: 30 per PT1S"));
    }
}
