package io.github.redissonratelimit.test.junit;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.test.context.junit.jupiter.SpringExtension;

import io.github.redissonratelimit.admin.RateLimiters;

/**
 * Resets every rate limit of the test's application context before each test: see {@link ResetRateLimits}, which
 * registers it. Runs before the test's own {@code @BeforeEach} methods.
 */
public class ResetRateLimitsExtension implements BeforeEachCallback {

    @Override
    public void beforeEach(ExtensionContext context) {
        ApplicationContext application = SpringExtension.getApplicationContext(context);
        RateLimiters rateLimiters = application.getBeanProvider(RateLimiters.class).getIfAvailable();
        if (rateLimiters == null) {
            return;
        }
        RateLimiters resetting = rateLimiters.by(getClass().getSimpleName() + " before "
                + context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName());
        resetting.resetAll();
        ResetRateLimits settings = AnnotatedElementUtils.findMergedAnnotation(context.getRequiredTestClass(),
                ResetRateLimits.class);
        if (settings == null || !settings.keepOverrides()) {
            resetting.clearOverrides();
        }
    }
}
