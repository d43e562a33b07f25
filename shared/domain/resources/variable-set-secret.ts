/**
 * The Secret holding a VariableSet's sensitive values: `variableset-<name>`, in its namespace,
 * written only by the API server. It is the only Secret a VariableSet may refer to: a reference
 * to any other would let whoever writes VariableSets read Secrets through the server's rights.
 */
export function sensitiveValuesSecretName(variableSetName: string): string {
  return `variableset-${variableSetName}`;
}
