package dev.profiledrollout;

import static org.apiguardian.api.API.Status.STABLE;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apiguardian.api.API;

/** The container of repeated {@link RolloutPhase} annotations; written by the compiler, rarely by hand. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@API(status = STABLE, since = "0.1")
public @interface RolloutPhases {

    /** The phases, in the order they run. */
    RolloutPhase[] value();
}
