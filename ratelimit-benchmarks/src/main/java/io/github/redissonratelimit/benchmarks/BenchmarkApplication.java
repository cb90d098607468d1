package io.github.redissonratelimit.benchmarks;

import org.redisson.api.RedissonClient;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;

/**
 * The Spring application of contenders (b) and (c): this project's auto-configuration and the hand-rolled
 * aspect, side by side, on the harness's Redisson client.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({ AopAutoConfiguration.class, RateLimitAutoConfiguration.class })
public class BenchmarkApplication {

    @Bean
    AnnotatedService annotatedService() {
        return new AnnotatedService();
    }

    @Bean
    InFlightService inFlightService() {
        return new InFlightService();
    }

    @Bean
    LeasedService leasedService() {
        return new LeasedService();
    }

    /** The section on leases' record of each permit's grant ({@link LeaseDeciders#PROPERTIES} turns it on). */
    @Bean
    @ConditionalOnProperty(LeaseDeciders.RECEIPTS)
    @Order(ReceiptRecorder.ORDER)
    ReceiptRecorder receiptRecorder() {
        return new ReceiptRecorder();
    }

    @Bean
    NaiveService naiveService() {
        return new NaiveService();
    }

    @Bean
    NaiveRateLimitAspect naiveRateLimitAspect(RedissonClient redissonClient) {
        return new NaiveRateLimitAspect(redissonClient);
    }

    /** Starts the application on {@code redisson} (which the caller shuts down), with extra properties. */
    static ConfigurableApplicationContext start(RedissonClient redisson, String... properties) {
        return new SpringApplicationBuilder(BenchmarkApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(properties)
                .initializers(context -> context.getBeanFactory().registerSingleton("redissonClient", redisson))
                .run();
    }
}
