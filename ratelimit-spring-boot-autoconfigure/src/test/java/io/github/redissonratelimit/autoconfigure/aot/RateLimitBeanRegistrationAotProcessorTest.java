package io.github.redissonratelimit.autoconfigure.aot;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;

import io.github.redissonratelimit.annotation.RateLimit;

class RateLimitBeanRegistrationAotProcessorTest {

    private final RateLimitBeanRegistrationAotProcessor processor = new RateLimitBeanRegistrationAotProcessor();

    private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

    private final TestGenerationContext generationContext = new TestGenerationContext();

    private final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

    @Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
    @Retention(RetentionPolicy.RUNTIME)
    @RateLimit(key = "'export:' + #tenant", rate = 1, interval = 60)
    @interface ExportLimit {
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ExportLimit
    @interface NightlyExportLimit {
    }

    public interface Greeting {
        @RateLimit(key = "#name", rate = 2)
        String greet(String name);
    }

    public static class Orders implements Greeting {

        @RateLimit(key = "'order:' + #userId", rate = 5, interval = 60)
        public String submit(String userId) {
            return userId;
        }

        @NightlyExportLimit
        public String export(String tenant) {
            return tenant;
        }

        @Override
        public String greet(String name) {
            return name;
        }

        public String unlimited() {
            return "free";
        }
    }

    @RateLimit(rate = 10)
    public static class Reports {
        public String daily() {
            return "daily";
        }
    }

    public static class Plain {
        public String call() {
            return "plain";
        }
    }

    public static class PolicyOnly {
        @RateLimit(name = "report-export", key = "#tenant")
        public String export(String tenant) {
            return tenant;
        }
    }

    public static class Quotes {

        @RateLimit(key = "#symbol", rate = 1, fallback = "cached")
        @RateLimit(name = "quotes-hourly", key = "'h:' + #symbol", rate = 100, interval = 3600, fallback = "stale")
        public String quote(String symbol) {
            return symbol;
        }

        String cached(String symbol, Exception rejection) {
            return "cached";
        }

        private static String stale(String symbol) {
            return "stale";
        }

        String unrelated() {
            return "";
        }
    }

    private BeanRegistrationAotContribution process(Class<?> beanClass) {
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
        return processor.processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
    }

    @Test
    void keepsLimitedMethodsInvocableAndComposedAnnotationsReadable() throws Exception {
        BeanRegistrationAotContribution contribution = process(Orders.class);
        assertThat(contribution).isNotNull();
        contribution.applyTo(generationContext, null);

        assertThat(reflection.onMethod(Orders.class.getMethod("submit", String.class)).invoke())
                .accepts(generationContext.getRuntimeHints());
        assertThat(reflection.onMethod(Orders.class.getMethod("export", String.class)).invoke())
                .accepts(generationContext.getRuntimeHints());
        assertThat(reflection.onMethod(Orders.class.getMethod("greet", String.class)).invoke())
                .accepts(generationContext.getRuntimeHints());
        assertThat(reflection.onMethod(Orders.class.getMethod("unlimited")).introspect())
                .rejects(generationContext.getRuntimeHints());
        for (Class<?> composed : new Class<?>[] { ExportLimit.class, NightlyExportLimit.class }) {
            assertThat(reflection.onType(composed).withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS))
                    .accepts(generationContext.getRuntimeHints());
        }
    }

    @Test
    void classLevelLimitKeepsThePublicMethods() throws Exception {
        process(Reports.class).applyTo(generationContext, null);
        assertThat(reflection.onMethod(Reports.class.getMethod("daily")).invoke())
                .accepts(generationContext.getRuntimeHints());
    }

    @Test
    void contributesNothingForABeanWithoutLimits() {
        assertThat(process(Plain.class)).isNull();
        assertThat(process(String.class)).isNull();
    }

    @Test
    void aLimitWhoseValuesComeFromPropertiesIsKeptWithoutThem() throws Exception {
        // no rate in the annotation: ratelimit.policies.report-export.rate supplies it at run time
        process(PolicyOnly.class).applyTo(generationContext, null);
        assertThat(reflection.onMethod(PolicyOnly.class.getMethod("export", String.class)).invoke())
                .accepts(generationContext.getRuntimeHints());
    }

    @Test
    void keepsFallbackMethodsInvocable() throws Exception {
        process(Quotes.class).applyTo(generationContext, null);

        assertThat(reflection.onMethod(Quotes.class.getDeclaredMethod("cached", String.class, Exception.class)).invoke())
                .accepts(generationContext.getRuntimeHints());
        assertThat(reflection.onMethod(Quotes.class.getDeclaredMethod("stale", String.class)).invoke())
                .accepts(generationContext.getRuntimeHints());
        assertThat(reflection.onMethod(Quotes.class.getDeclaredMethod("unrelated")).introspect())
                .rejects(generationContext.getRuntimeHints());
    }
}
