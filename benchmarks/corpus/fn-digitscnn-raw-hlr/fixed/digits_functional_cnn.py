import numpy as np
import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from keras.layers import Input, Conv2D, MaxPooling2D, Flatten, Dense, Dropout
from keras.models import Model
from keras.losses import CategoricalCrossentropy
from keras.optimizers import SGD
from keras.utils import to_categorical

digits = load_digits()
images = digits.images.reshape(-1, 8, 8, 1) / 16.0
labels = to_categorical(digits.target)
idx = np.random.permutation(len(images))
train_idx, test_idx = idx[:1400], idx[1400:]

inputs = Input(shape=(8, 8, 1))
x = Conv2D(32, (3, 3), activation='relu', padding='same', kernel_initializer='glorot_uniform')(inputs)
x = MaxPooling2D((2, 2))(x)
x = Flatten()(x)
x = Dense(64, activation='relu', kernel_initializer='glorot_uniform')(x)
x = Dropout(0.3)(x)
outputs = Dense(10, activation='softmax')(x)
model = Model(inputs=inputs, outputs=outputs)

model.compile(loss=CategoricalCrossentropy(), optimizer=SGD(learning_rate=0.01, momentum=0.9),
              metrics=['accuracy'])
hist = model.fit(images[train_idx], labels[train_idx], epochs=40, batch_size=32,
                 validation_data=(images[test_idx], labels[test_idx]))
print(max(hist.history['val_accuracy']))
