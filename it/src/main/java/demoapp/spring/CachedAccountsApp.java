package demoapp.spring;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring bean with a {@code @Cacheable} method, so that the context hands out Spring's CGLIB subclass of it
 * ({@code CachedAccountsApp$Accounts$$SpringCGLIB$$0}), as a Spring service is (trial25). Knows nothing of tracegate.
 * By default s1 looks ada up twice (the second a cache hit), s2 bob, s3 mallory; {@code profile}: s1 reads ada's and bob's
 * profiles (cached by customer, whatever the conversation), s2 bob's.
 */
public final class CachedAccountsApp {

    /** The service: each look-up's body counts its runs. */
    public static class Accounts {
        static final AtomicInteger lookups = new AtomicInteger();
        static final AtomicInteger profiles = new AtomicInteger();

        /** Cached per customer, whatever the conversation (a profile is the same in every session). */
        @Cacheable(value = "profiles", key = "#customer")
        public String profile(String session, String customer) {
            profiles.incrementAndGet();
            return "profile of " + customer;
        }

        @Cacheable("accounts")
        public String lookup(String session, String customer) {
            lookups.incrementAndGet();
            return "account of " + customer;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class Cfg {
        @Bean
        CacheManager cacheManager() {
            return new ConcurrentMapCacheManager("accounts", "profiles");
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }

    public static void main(String[] args) {
        try (AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext(Cfg.class)) {
            Accounts svc = ctx.getBean(Accounts.class);
            System.out.println("BEAN " + svc.getClass().getName());
            if (args.length > 0 && args[0].equals("profile")) {
                // s1 reads ada's and bob's profiles, then s2 (another conversation) bob's
                for (String[] call : new String[][] {{"s1", "ada"}, {"s1", "bob"}, {"s2", "bob"}}) {
                    try {
                        System.out.println("profile(" + call[0] + "," + call[1] + ") = " + svc.profile(call[0], call[1]));
                    } catch (RuntimeException e) {
                        System.out.println("profile(" + call[0] + "," + call[1] + ") threw " + e);
                    }
                }
                System.out.println("PROFILES RAN " + Accounts.profiles.get());
                return;
            }
            for (String[] call : new String[][] {{"s1", "ada"}, {"s1", "ada"}, {"s2", "bob"}, {"s3", "mallory"}}) {
                try {
                    System.out.println("lookup(" + call[0] + "," + call[1] + ") = " + svc.lookup(call[0], call[1]));
                } catch (RuntimeException e) {
                    System.out.println("lookup(" + call[0] + "," + call[1] + ") threw " + e);
                }
            }
            System.out.println("LOOKUPS RAN " + Accounts.lookups.get());
        }
    }
}
