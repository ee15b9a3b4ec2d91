package dev.tracegate.it.escalation;

import java.util.Map;

/**
 * An operator's escalation approver as the agent loads it ({@code escalate.approver}): JDK types only,
 * allows every call and prints each request, so the test sees how often it was asked.
 */
public final class ApprovingApprover {
    public ApprovingApprover() {}

    public boolean approve(Map<String, String> request) {
        System.out.println("APPROVER ASKED contract=" + request.get("contract") + " arguments=" + request.get("arguments"));
        System.out.flush();
        return true;
    }
}
