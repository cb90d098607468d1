package io.github.redissonratelimit.autoconfigure.routes;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

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
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.actuate.RateLimitEndpointAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.web.RateLimitWebMvcAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.web.reactive.RateLimitWebFluxAutoConfiguration;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Starts a Spring MVC (Tomcat) or WebFlux (Netty) application with the starter, its routes and annotated
 * controllers on the test Redis, and sends it real HTTP requests.
 */
public final class HttpApps {

    private final RedisEndpoint redis;
    // HTTP/1.1 from the first request: the default (HTTP/2) sends a first request to each server as an upgrade to
    // h2c, which the servers here do not take; a request must reach its server once, as it was sent
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    public HttpApps(RedisEndpoint redis) {
        this.redis = redis;
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ RateLimitAutoConfiguration.class, RateLimitRoutesAutoConfiguration.class,
            AopAutoConfiguration.class, RateLimitEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
            WebEndpointAutoConfiguration.class, ManagementContextAutoConfiguration.class,
            JacksonAutoConfiguration.class })
    static class Common {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ServletWebServerFactoryAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
            HttpMessageConvertersAutoConfiguration.class, ServletManagementContextAutoConfiguration.class,
            RateLimitWebMvcAutoConfiguration.class })
    static class Servlet {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ReactiveWebServerFactoryAutoConfiguration.class, HttpHandlerAutoConfiguration.class,
            WebFluxAutoConfiguration.class, CodecsAutoConfiguration.class,
            ReactiveManagementContextAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class })
    static class Reactive {
    }

    /** @param controller the application's controller (servlet or reactive, as {@code type} is) */
    public ConfigurableApplicationContext start(WebApplicationType type, Class<?> controller, String... properties) {
        List<String> args = new ArrayList<>(List.of("--server.port=0",
                "--management.endpoints.web.exposure.include=ratelimits", "--ratelimit.backend-timeout=5s",
                "--spring.main.banner-mode=off"));
        for (String property : properties) {
            args.add("--" + property);
        }
        return new SpringApplicationBuilder(Common.class, type == WebApplicationType.SERVLET ? Servlet.class
                : Reactive.class, controller).web(type)
                .initializers(context -> ((GenericApplicationContext) context).registerBean(RedissonClient.class,
                        redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown")))
                .run(args.toArray(String[]::new));
    }

    HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path, String... headers)
            throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The free permits of the sliding window limiter of {@code key} as Redis holds them, or null before any grant. */
    Long free(String key) {
        try (RespClient cli = redis.cli()) {
            String free = cli.string("GET", "rate_limit:{" + key + "}:value");
            return free == null ? null : Long.valueOf(free);
        }
    }
}
