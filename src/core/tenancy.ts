// Who and where a request acts: the plan of its account, the mode of its branch's data, the role
// of a staff user. Every layer speaks of these; the store keeps the rows they come from.

export type Plan = 'free' | 'pro' | 'business';
export const PLANS: readonly Plan[] = ['free', 'pro', 'business'];

/** Live and test data never meet (decision 0003). */
export type Mode = 'live' | 'test';

export type Role = 'owner' | 'manager' | 'staff';
export const ROLES: readonly Role[] = ['owner', 'manager', 'staff'];
