package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/** Route configuration that cannot work fails startup naming the property; a good one is declared by name. */
class RouteConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitRoutesAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient)
            .withPropertyValues("ratelimit.routes.api.paths=/api/**", "ratelimit.routes.api.rate=10");

    private void assertFails(String property, String message, String... values) {
        runner.withPropertyValues(values).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining(property).hasMessageContaining(message));
    }

    @Test
    void aGoodRouteIsListedByNameWithItsLimit() {
        runner.withPropertyValues("ratelimit.routes.api.key=header['X-Api-Key']", "ratelimit.routes.api.methods=get")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RouteTable.class)
                            .hasBean("rateLimitRouteFilter");
                    assertThat(context.getBean(RateLimitOperationSource.class).declaredLimits().named("api"))
                            .singleElement().satisfies(operation -> {
                                assertThat(operation.spec().rate()).isEqualTo(10);
                                assertThat(operation.method()).isEqualTo("route 'api' [GET] [/api/**]");
                            });
                });
    }

    @Test
    void aRouteTakesWhatItDoesNotSetFromItsPolicy() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitRoutesAutoConfiguration.class))
                .withBean(RedissonClient.class, NoRedis::redissonClient)
                .withPropertyValues("ratelimit.policies.partner.rate=7", "ratelimit.policies.partner.interval=1m",
                        "ratelimit.policies.partner.shadow=true", "ratelimit.routes.partner-api.paths=/partner/**",
                        "ratelimit.routes.partner-api.policy=partner", "ratelimit.routes.partner-api.interval=2m",
                        "ratelimit.routes.partner-api.on-backend-error=deny")
                .run(context -> assertThat(context.getBean(RateLimitOperationSource.class).declaredLimits()
                        .named("partner-api")).singleElement().satisfies(operation -> {
                            assertThat(operation.spec().rate()).isEqualTo(7);
                            assertThat(operation.spec().interval()).hasMinutes(2);
                            assertThat(operation.shadow()).isTrue();
                            assertThat(operation.policyName()).isEqualTo("partner");
                            assertThat(operation.backendErrorPolicy())
                                    .isEqualTo(io.github.redissonratelimit.annotation.BackendErrorPolicy.DENY);
                        }));
    }

    @Test
    void noRoutesNoFilter() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitRoutesAutoConfiguration.class))
                .withBean(RedissonClient.class, NoRedis::redissonClient)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RouteTable.class));
    }

    @Test
    void badEntriesFailStartupNamingTheProperty() {
        assertFails("ratelimit.routes.api.paths[0]", "not a path pattern", "ratelimit.routes.api.paths=/api/**/x/**");
        assertFails("ratelimit.routes.api.methods[0]", "not an HTTP method", "ratelimit.routes.api.methods=FETCH");
        assertFails("ratelimit.routes.api.key", "not valid SpEL", "ratelimit.routes.api.key=header[");
        assertFails("ratelimit.routes.api.key", "reads what no request has", "ratelimit.routes.api.key=remoteAdress");
        assertFails("ratelimit.routes.api.charge-when", "reads what no request has",
                "ratelimit.routes.api.charge-when=stauts == 401");
        runner.withPropertyValues("ratelimit.routes.api.permits=11").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("routes[api].permits"));
        assertFails("ratelimit.routes.api.policy", "no ratelimit.policies entry has that name",
                "ratelimit.routes.api.policy=missing");
        assertFails("ratelimit.routes.api.tiers", "no ratelimit.routes.api.tier expression",
                "ratelimit.routes.api.tiers.gold.rate=100");
    }

    @Test
    void aRouteWithoutARateFailsStartup() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                        RateLimitRoutesAutoConfiguration.class))
                .withBean(RedissonClient.class, NoRedis::redissonClient)
                .withPropertyValues("ratelimit.routes.open.paths=/open")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("ratelimit.routes.open.rate").hasMessageContaining("a route needs a rate"));
    }
}
