package io.github.redissonratelimit.operation;

import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.TreeSet;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.SingletonBeanRegistry;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Validates every {@code @RateLimit} of every bean class once the context has started, including lazy and
 * prototype beans that were not proxied yet, so a broken declaration fails startup instead of the first
 * request. Warns about configured policies that no annotation names (a typo in a property key).
 */
public class RateLimitDeclarationValidator implements SmartInitializingSingleton, BeanFactoryAware {

    private static final Log logger = LogFactory.getLog(RateLimitDeclarationValidator.class);

    private final RateLimitOperationSource operationSource;
    private final RateLimitPolicies policies;
    private ListableBeanFactory beanFactory;

    public RateLimitDeclarationValidator(RateLimitOperationSource operationSource, RateLimitPolicies policies) {
        this.operationSource = operationSource;
        this.policies = policies;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = beanFactory instanceof ListableBeanFactory listable ? listable : null;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (beanFactory == null) {
            return;
        }
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = userClass(beanName, beanFactory.getType(beanName, false));
            if (type != null) {
                validate(type);
            }
        }
        Set<String> unused = new TreeSet<>(policies.names());
        unused.removeAll(operationSource.declaredLimits().names());
        for (String name : unused) {
            logger.warn(policies.describePolicyValue(name, "*") + " is configured, but no @RateLimit(name = \""
                    + name + "\") exists in the application context: check the name for typos");
        }
    }

    /**
     * The class whose methods carry the bean's limits. A JDK proxy shows only its interfaces, and its methods
     * have no parameter names: the class behind it is validated when the bean exists; otherwise its limits
     * are validated when it is proxied and called.
     */
    private Class<?> userClass(String beanName, Class<?> type) {
        if (type == null || !Proxy.isProxyClass(type)) {
            return type == null ? null : ClassUtils.getUserClass(type);
        }
        Object bean = beanFactory instanceof SingletonBeanRegistry singletons ? singletons.getSingleton(beanName) : null;
        return bean == null || bean instanceof FactoryBean ? null : AopProxyUtils.ultimateTargetClass(bean);
    }

    /** Builds (and so validates) the operations of every method of {@code type}. */
    public void validate(Class<?> type) {
        if (!operationSource.isCandidateClass(type)) {
            return;
        }
        ReflectionUtils.doWithMethods(type, method -> operationSource.getOperations(method, type),
                ReflectionUtils.USER_DECLARED_METHODS);
    }
}
