package io.github.redissonratelimit.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.reactive.ReactiveManagementContextAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.servlet.ServletManagementContextAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.http.codec.CodecsAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.HttpHandlerAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.ReactiveWebServerFactoryAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.WebFluxAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.ServletWebServerFactoryAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * A write of {@code /actuator/ratelimits} refused for one of its values, over real HTTP on Spring MVC (Tomcat) and
 * WebFlux (Netty), on a real Redis: 400 with an RFC 9457 problem naming the field and the rule, one WARN line with
 * the request's values escaped and no stack trace, and nothing written.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitsEndpointProblemHttpTest {

    private static final String REFUSED = "Refused to ";

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    public static class Orders {

        @RateLimit(name = "order-submit", key = "'order:' + #userId", rate = 5, interval = 60)
        public String submit(String userId) {
            return "ok";
        }

        @RateLimit(name = "bulk", rate = 10, interval = 60, permits = 3)
        public String bulk() {
            return "bulk";
        }

        @RateLimit(name = "by-user", key = "#userId", rate = 5, interval = 60)
        public String byUser(String userId) {
            return "ok";
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ RateLimitAutoConfiguration.class, RateLimitEndpointAutoConfiguration.class,
            AopAutoConfiguration.class, EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
            ManagementContextAutoConfiguration.class, JacksonAutoConfiguration.class })
    static class Common {

        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ServletWebServerFactoryAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
            HttpMessageConvertersAutoConfiguration.class, ServletManagementContextAutoConfiguration.class })
    static class Servlet {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ReactiveWebServerFactoryAutoConfiguration.class, HttpHandlerAutoConfiguration.class,
            WebFluxAutoConfiguration.class, CodecsAutoConfiguration.class,
            ReactiveManagementContextAutoConfiguration.class })
    static class Reactive {
    }

    private ConfigurableApplicationContext start(WebApplicationType type) {
        return new SpringApplicationBuilder(Common.class, type == WebApplicationType.SERVLET ? Servlet.class
                : Reactive.class).web(type)
                .initializers(context -> ((GenericApplicationContext) context).registerBean(RedissonClient.class,
                        redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown")))
                .run("--server.port=0", "--management.endpoints.web.exposure.include=ratelimits",
                        "--ratelimit.backend-timeout=5s", "--spring.main.banner-mode=off");
    }

    private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path, String body)
            throws IOException, InterruptedException {
        URI uri = URI.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port") + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).header("Accept", "application/json");
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return http.send(request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Asserts a 400 problem about {@code field}, and returns its members. */
    private Map<?, ?> problem(HttpResponse<String> response, String limit, String field) throws IOException {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        Map<?, ?> problem = json.readValue(response.body(), Map.class);
        assertThat(problem.get("type")).isEqualTo("about:blank");
        assertThat(problem.get("title")).isEqualTo("Bad Request");
        assertThat(problem.get("status")).isEqualTo(400);
        assertThat(problem.get("limit")).isEqualTo(limit);
        assertThat(problem.get("field")).isEqualTo(field);
        return problem;
    }

    private static long count(CapturedOutput output, String text) {
        return output.getAll().lines().filter(line -> line.contains(text)).count();
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void refusedOverridesAreProblemsNamingTheFieldAndTheRule(WebApplicationType type, CapturedOutput output)
            throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            String path = "/actuator/ratelimits/order-submit";
            Map<?, ?> permits = problem(send(context, "POST", path,
                    "{\"rate\": 5, \"interval\": \"1m\", \"permits\": 10}"), "order-submit", "permits");
            assertThat(permits.get("rule")).isEqualTo("must be a whole number from 1 to the rate (5)");
            assertThat(permits.get("detail")).isEqualTo("Did not override rate limit 'order-submit': permits '10' "
                    + "must be a whole number from 1 to the rate (5)");

            Map<?, ?> rate = problem(send(context, "POST", path, "{\"rate\": \"abc\", \"interval\": \"1m\"}"),
                    "order-submit", "rate");
            assertThat(rate.get("rule")).isEqualTo("must be a whole number of at least 1");
            assertThat((String) rate.get("detail")).contains("rate 'abc' must be");

            Map<?, ?> interval = problem(send(context, "POST", path, "{\"rate\": 1, \"interval\": \"1 minute\"}"),
                    "order-submit", "interval");
            assertThat(interval.get("rule")).isEqualTo("must be a duration such as 30s, 1m or PT1M, of at least 1ms");

            Map<?, ?> missing = problem(send(context, "POST", path, "{\"interval\": \"30s\"}"), "order-submit", "rate");
            assertThat((String) missing.get("detail")).endsWith("rate is required: it must be a whole number of at "
                    + "least 1");

            Map<?, ?> belowPermits = problem(send(context, "POST", "/actuator/ratelimits/bulk",
                    "{\"rate\": 2, \"interval\": \"30s\"}"), "bulk", "rate");
            assertThat((String) belowPermits.get("rule")).startsWith("must be at least the 3 permits each call of ")
                    .endsWith("Orders.bulk() takes: give a higher rate, or permits");

            assertThat(redis.keys("rate_limit:%overrides")).as("nothing was stored").isEmpty();
            assertThat(count(output, REFUSED)).as("one log line a refusal").isEqualTo(5);
            assertThat(output).contains("WARN", "Refused to override rate limit 'order-submit' asked by 'anonymous "
                    + "actuator request': permits '10' must be a whole number from 1 to the rate (5)",
                    "Refused to override rate limit 'order-submit' asked by 'anonymous actuator request': interval "
                            + "'1 minute' must be a duration")
                    .doesNotContain("RefusedWrite", "InvalidEndpointRequestException", "\tat ");

            HttpResponse<String> accepted = send(context, "POST", path, "{\"rate\": 2, \"interval\": \"30s\"}");
            assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
            assertThat(json.readValue(accepted.body(), Map.class).get("rate")).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void theRequestsValuesAreEscapedInTheLogLine(WebApplicationType type, CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            Map<?, ?> problem = problem(send(context, "POST", "/actuator/ratelimits/order-submit",
                    "{\"rate\": \"1\\nFORGED 00:00:00.000 INFO granted\", \"interval\": \"1m\"}"), "order-submit",
                    "rate");
            assertThat((String) problem.get("detail")).contains("rate '1\nFORGED");
            assertThat(count(output, REFUSED)).isEqualTo(1);
            assertThat(output).contains("rate '1\\nFORGED 00:00:00.000 INFO granted' must be");
            assertThat(output.getAll().lines()).noneMatch(line -> line.startsWith("FORGED"));
        }
    }

    /**
     * Servlet only: on WebFlux, Boot's mapping of the endpoint gives the path segments after the limit's name with
     * the name in front, so a reset without a key never reaches the endpoint as one.
     */
    @Test
    void aRefusedResetIsAProblemAboutTheKey(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApplicationType.SERVLET)) {
            Map<?, ?> problem = problem(send(context, "DELETE", "/actuator/ratelimits/by-user", null), "by-user",
                    "key");
            assertThat((String) problem.get("detail")).startsWith("Did not reset rate limit 'by-user': ");
            assertThat(count(output, "Refused to reset rate limit 'by-user' asked by 'anonymous actuator request'"))
                    .isEqualTo(1);
            assertThat(output).doesNotContain("\tat ");
        }
    }
}
