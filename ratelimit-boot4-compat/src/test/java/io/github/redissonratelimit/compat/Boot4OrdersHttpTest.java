package io.github.redissonratelimit.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

import io.github.redissonratelimit.autoconfigure.web.RateLimitProblemHandler;
import io.github.redissonratelimit.compat.app.OrdersApplication;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;
import io.github.redissonratelimit.test.redis.TestRedis;
import tools.jackson.databind.json.JsonMapper;

/**
 * The orders app on Spring Boot 4 over real HTTP (embedded Tomcat 11), its RedissonClient built by Redisson's
 * Boot 4 auto-configuration from {@code spring.data.redis.*}, the 429 body written by Jackson 3.
 */
@SpringBootTest(classes = OrdersApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = OrdersApplication.TEST_BACKEND_TIMEOUT)
class Boot4OrdersHttpTest {

    private static final RedisEndpoint redis = TestRedis.endpoint();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);
    }

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private Environment environment;

    @Autowired
    private ConfigurableApplicationContext context;

    @BeforeEach
    void flush() {
        redis.flushAll();
    }

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        URI uri = URI.create("http://localhost:" + environment.getProperty("local.server.port") + path);
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void runsOnSpringBoot4WithJackson3AndRedissonsBoot4AutoConfiguration() {
        // the parent of ratelimit-boot4-compat (4.0.x) or ratelimit-boot41-compat (4.1.x), which share this suite
        String expectedBoot = System.getProperty("compat.expected-boot-version");
        assertThat(SpringBootVersion.getVersion()).startsWith("4.");
        if (expectedBoot != null) {
            assertThat(SpringBootVersion.getVersion()).isEqualTo(expectedBoot);
        }
        assertThat(ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", null)).isTrue();
        assertThat(ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", null)).isFalse();
        assertThat(context.getBeanFactory().getBeanDefinition(context.getBeanNamesForType(RedissonClient.class)[0])
                .getFactoryBeanName()).isEqualTo("org.redisson.spring.starter.RedissonAutoConfigurationV4");
        assertThat(context.getBean(RequestMappingHandlerAdapter.class).getMessageConverters())
                .extracting(HttpMessageConverter::getClass).extracting(Class::getSimpleName)
                .contains("JacksonJsonHttpMessageConverter");
        assertThat(context.getBeansOfType(RateLimitProblemHandler.class)).hasSize(1);
    }

    @Test
    void fiveOrdersPerUserThen429WithRetryAfterAndProblemJson() throws Exception {
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> accepted = send("POST", "/orders/submit?userId=alice");
            assertThat(accepted.statusCode()).isEqualTo(200);
            assertThat(accepted.body()).contains("\"status\":\"ACCEPTED\"");
        }
        HttpResponse<String> rejected = send("POST", "/orders/submit?userId=alice");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(55L, 60L));
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        @SuppressWarnings("unchecked")
        Map<String, Object> problem = JsonMapper.builder().build().readValue(rejected.body(), Map.class);
        assertThat(problem).containsEntry("type", "about:blank")
                .containsEntry("title", "Too Many Requests")
                .containsEntry("status", 429)
                .containsEntry("detail", "You can submit at most 5 orders per minute")
                .containsEntry("instance", "/orders/submit")
                .hasSize(5);

        try (RespClient cli = redis.cli()) {
            assertThat(cli.list("KEYS", "rate_limit*")).containsExactlyInAnyOrder("rate_limit:{order:submit:alice}",
                    "rate_limit:{order:submit:alice}:value", "rate_limit:{order:submit:alice}:permits");
        }
    }

    @Test
    void eachUserHasTheirOwnLimit() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/orders/submit?userId=carol").statusCode()).isEqualTo(200);
        }
        assertThat(send("POST", "/orders/submit?userId=carol").statusCode()).isEqualTo(429);
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/orders/submit?userId=dave").statusCode()).isEqualTo(200);
        }
        assertThat(send("POST", "/orders/submit?userId=dave").statusCode()).isEqualTo(429);
        assertThat(send("GET", "/orders/detail").statusCode()).isEqualTo(200);
    }

    @Test
    void composedAnnotationLimitsEachOrder() throws Exception {
        assertThat(send("POST", "/orders/o-1/cancel").statusCode()).isEqualTo(200);
        assertThat(send("POST", "/orders/o-1/cancel").statusCode()).isEqualTo(200);
        HttpResponse<String> rejected = send("POST", "/orders/o-1/cancel");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains("Too many cancellations for this order");
        assertThat(send("POST", "/orders/o-2/cancel").statusCode()).isEqualTo(200);
    }
}
