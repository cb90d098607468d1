package io.github.redissonratelimit.benchmarks;

import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;

/**
 * A web application on embedded Tomcat with a limited endpoint and its unlimited twin, identical otherwise: what
 * the limiter adds to a real HTTP request, with everything a Boot application has (429 handler, rate limit
 * headers with the permits left).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class HttpApplication {

    /**
     * The leased endpoint's lease period, the sample app's: a lease is worth its call to Redis only when it lasts
     * several of its round trips, which under this machine's load take 5 to 20 ms (a lease of 10 ms arrives nearly
     * spent, and its callers wait for the next).
     */
    static final String LEASE = "100ms";

    /** Starts the application on a free port on {@code redisson} (which the caller shuts down), with extra properties. */
    static ConfigurableApplicationContext start(RedissonClient redisson, String... properties) {
        return new SpringApplicationBuilder(HttpApplication.class)
                .web(WebApplicationType.SERVLET)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties("server.port=0", "server.address=127.0.0.1", "spring.jmx.enabled=false")
                .properties(properties)
                .initializers(context -> context.getBeanFactory().registerSingleton("redissonClient", redisson))
                .run();
    }

    /** Registered as a member class of this configuration. */
    @RestController
    public static class Endpoints {

        private final RedissonClient redisson;

        public Endpoints(RedissonClient redisson) {
            this.redisson = redisson;
        }

        @GetMapping("/limited/{user}")
        @RateLimit(key = "'http:' + #user", rate = Limits.GENEROUS_RATE, window = "1s")
        public String limited(@PathVariable String user) {
            return user;
        }

        /**
         * The limited endpoint with a lease of {@value #LEASE}, on one global limit: a lease pays off on a hot limit,
         * and a user of the 256 comes back only every few hundred requests, long after any lease ended.
         */
        @GetMapping("/leased/{user}")
        @RateLimit(name = "http-leased", key = "'http-leased'", rate = Limits.GENEROUS_RATE, window = "1s",
                lease = LEASE)
        public String leased(@PathVariable String user) {
            return user;
        }

        @GetMapping("/unlimited/{user}")
        public String unlimited(@PathVariable String user) {
            return user;
        }

        /** Unlimited, with one Redis round trip through the same Redisson client: what one costs the application. */
        @GetMapping("/redis/{user}")
        public String oneRedisCall(@PathVariable String user) {
            redisson.getBucket("http-probe:" + user, StringCodec.INSTANCE).get();
            return user;
        }
    }
}
