import numpy as np
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Dense
N_IN = 7
clf = Sequential([Dense(10, activation="relu", input_shape=(N_IN,)), Dense(2, activation="softmax")])
clf.compile(loss="sparse_categorical_crossentropy", optimizer="sgd")
clf.fit(np.random.rand(30, N_IN), np.random.randint(0, 2, 30), epochs=2)
probe = np.ones(N_IN)
print(clf.predict(probe))
